#!/usr/bin/env bash
# Makes, once, a Python venv holding the PySpark pinned in requirements-spark.txt, and prints its
# bin directory as the only line on stdout (issue 46: the Spark lane reads `dbtattic export`'s
# dataset with a real Spark):
#
#   bin=$(scripts/spark-venv.sh) && "$bin/python" -c 'import pyspark; print(pyspark.__version__)'
#
# The same pattern as scripts/dbt-venv.sh (read its header for the why): the venv lives at
# $DBTATTIC_SPARK_VENV, or by default under ~/.cache/dbtattic-spark/ named by the requirements
# file's hash; it counts only once its marker (written last) holds that hash; it is built beside
# the final path and published by one symlink, so of two concurrent runs one wins and neither
# sees a half-made venv. Spark itself needs Java 17 on PATH (or JAVA_HOME) to run, not to install.
#
# Env: DBTATTIC_SPARK_VENV (the venv path), DBTATTIC_PYTHON (the interpreter, default python3).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
requirements="$root/requirements-spark.txt"
python=${DBTATTIC_PYTHON:-python3}
marker_name=.dbtattic-venv-complete

verbose=
[[ -t 2 && -z ${CI:-} ]] && verbose=1

die() {
  printf 'spark-venv: %s\n' "$1" >&2
  exit 1
}

say() {
  if [[ -n $verbose ]]; then printf 'spark-venv: %s\n' "$1" >&2; fi
}

is_complete() {
  local venv=$1
  [[ -f $venv/$marker_name && -x $venv/bin/python ]] && [[ $(<"$venv/$marker_name") == "$digest" ]]
}

sha256() {
  local out
  if out=$(sha256sum "$1" 2>/dev/null) || out=$(shasum -a 256 "$1" 2>/dev/null); then
    printf '%s\n' "${out%% *}"
  else
    "$python" -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' "$1"
  fi
}

# Fills $1 with a venv of requirements-spark.txt; anything wrong ends the script. PySpark is an
# sdist only, so binaries are not required (unlike the dbt venv): pip builds its wheel.
build_venv() {
  local dir=$1 pip_output=--quiet
  "$python" -c 'import sys; sys.exit(sys.version_info < (3, 8))' ||
    die "$python is Python $("$python" -c 'import platform; print(platform.python_version())'); PySpark 3.5 needs 3.8+ (set DBTATTIC_PYTHON)"
  [[ -n $verbose ]] && pip_output=--progress-bar=on
  say "creating a venv in $dir"
  "$python" -m venv "$dir" >&2 ||
    die "$python -m venv failed (on Debian or Ubuntu: apt install python3-venv)"
  say "installing requirements-spark.txt (PySpark is about 320 MB: a minute the first time)"
  "$dir/bin/python" -m pip install "$pip_output" --disable-pip-version-check --no-input --no-cache-dir \
    --no-deps --requirement "$requirements" >&2 ||
    die "pip install -r requirements-spark.txt failed (pip's output is above)"
  local problems
  problems=$("$dir/bin/python" -m pip check --disable-pip-version-check 2>&1 | grep -v -x -e 'No broken requirements found.' || true)
  [[ -z $problems ]] || die "pip check found what requirements-spark.txt lacks on this Python: ${problems//$'\n'/; }"
  "$dir/bin/python" -c 'import pyspark.sql' 2>/dev/null ||
    die "pyspark does not import in $dir (try: $dir/bin/python -c 'import pyspark.sql')"
  printf '%s\n' "$digest" >"$dir/$marker_name"
}

[[ -f $requirements ]] || die "$requirements is missing"
command -v "$python" >/dev/null 2>&1 || die "$python not found: install Python 3.8+ or set DBTATTIC_PYTHON"
digest=$(sha256 "$requirements")
venv=${DBTATTIC_SPARK_VENV:-$HOME/.cache/dbtattic-spark/venv-${digest:0:12}}
venv=${venv%/}

if is_complete "$venv"; then
  printf '%s\n' "$venv/bin"
  exit 0
fi

stale=
if [[ -L $venv ]]; then
  stale=$(readlink "$venv")
elif [[ -e $venv ]]; then
  die "$venv exists but is not a complete venv of this requirements-spark.txt: remove it, or set DBTATTIC_SPARK_VENV elsewhere"
fi

mkdir -p "$(dirname "$venv")"
build=$(mktemp -d "$venv.XXXXXX")
chmod 755 "$build"
published=
trap '[[ -n $published ]] || rm -rf "$build"' EXIT
build_venv "$build"

if [[ -n $stale ]]; then
  rm -f "$venv"
  if ln -sn "$build" "$venv" 2>/dev/null; then
    published=1
    case $stale in "$venv".*) rm -rf "$stale" ;; esac
  fi
elif ln -sn "$build" "$venv" 2>/dev/null; then
  published=1
fi
if [[ -n $published ]]; then
  say "ready: $venv -> $build"
else
  is_complete "$venv" || die "another run published $venv but it is not complete: remove it and run again"
  say "another run finished first; using its venv"
fi
printf '%s\n' "$venv/bin"
