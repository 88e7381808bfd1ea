#!/usr/bin/env bash
# Makes, once, a Python venv holding the PySpark pinned in requirements-spark.txt, and prints its
# bin directory as the only line on stdout (issue 46: the Spark lane reads `dbtattic export`'s
# dataset with a real Spark):
#
#   bin=$(scripts/spark-venv.sh) && "$bin/python" -c 'import pyspark; print(pyspark.__version__)'
#
# Where it lives, when it counts, and how two runs at once share it: scripts/pinned-venv.sh.
# Spark itself needs Java 17 on PATH (or JAVA_HOME) to run, not to install.
#
# Env: DBTATTIC_SPARK_VENV (the venv path), DBTATTIC_PYTHON (the interpreter, default python3).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
name=spark-venv
requirements="$root/requirements-spark.txt"
cache=dbtattic-spark
venv_variable=DBTATTIC_SPARK_VENV
# shellcheck source=scripts/pinned-venv.sh
source "$root/scripts/pinned-venv.sh"

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
  pip_check "$dir"
  "$dir/bin/python" -c 'import pyspark.sql' 2>/dev/null ||
    die "pyspark does not import in $dir (try: $dir/bin/python -c 'import pyspark.sql')"
}

make_pinned_venv
