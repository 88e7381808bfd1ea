#!/usr/bin/env bash
# Fetches, once, the two jars Spark's S3A filesystem needs beside PySpark 3.5.9 (whose jars bundle
# Hadoop 3.3.4 without its S3 connector), and prints their paths, comma-separated, as the only
# line on stdout: what `spark.jars` takes (test/helpers/spark_questions.py).
#
#   jars=$(scripts/spark-s3a-jars.sh)
#
# hadoop-aws 3.3.4 (the connector, matching the bundled Hadoop) and aws-java-sdk-bundle 1.12.262
# (the AWS SDK hadoop-aws 3.3.4 was built against, about 280 MB), from Maven Central. Each is
# checked against the SHA-256 pinned here (taken when these were first fetched; Maven Central's
# .sha1 files agreed), written to a temp name and renamed, so the cache holds whole, checked jars
# or nothing. The cache: $DBTATTIC_SPARK_JARS_DIR, else ~/.cache/dbtattic-spark/jars.
set -euo pipefail

dir=${DBTATTIC_SPARK_JARS_DIR:-$HOME/.cache/dbtattic-spark/jars}
maven=${DBTATTIC_MAVEN_URL:-https://repo1.maven.org/maven2}
jars=(
  "org/apache/hadoop/hadoop-aws/3.3.4/hadoop-aws-3.3.4.jar 53f9ae03c681a30a50aa17524bd9790ab596b28481858e54efd989a826ed3a4a"
  "com/amazonaws/aws-java-sdk-bundle/1.12.262/aws-java-sdk-bundle-1.12.262.jar 873fe7cf495126619997bec21c44de5d992544aea7e632fdc77adb1a0915bae5"
)

die() {
  printf 'spark-s3a-jars: %s\n' "$1" >&2
  exit 1
}

sha256() {
  local out
  out=$(sha256sum "$1" 2>/dev/null) || out=$(shasum -a 256 "$1") || die "no sha256sum or shasum"
  printf '%s\n' "${out%% *}"
}

command -v curl >/dev/null 2>&1 || die "curl not found"
mkdir -p "$dir"
paths=()
for entry in "${jars[@]}"; do
  read -r key digest <<<"$entry"
  file="$dir/${key##*/}"
  if [[ ! -f $file ]]; then
    tmp=$(mktemp "$file.XXXXXX")
    trap 'rm -f "$tmp"' EXIT
    curl -fsSL --retry 3 --connect-timeout 20 -o "$tmp" "$maven/$key" || die "could not fetch $maven/$key"
    [[ $(sha256 "$tmp") == "$digest" ]] || die "$maven/$key is not the jar pinned here (SHA-256 differs)"
    chmod 644 "$tmp"
    mv -f "$tmp" "$file"
    trap - EXIT
  fi
  paths+=("$file")
done
(IFS=,; printf '%s\n' "${paths[*]}")
