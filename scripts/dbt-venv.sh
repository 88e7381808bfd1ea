#!/usr/bin/env bash
# Makes, once, a Python venv holding the dbt pinned in requirements-dbt.txt, and prints its bin
# directory as the only line on stdout (issue 43: tests and examples that run a real dbt):
#
#   bin=$(scripts/dbt-venv.sh) && "$bin/dbt" --version
#
# Where it lives, when it counts, and how two runs at once share it: scripts/pinned-venv.sh.
#
# Env: DBTATTIC_DBT_VENV (the venv path), DBTATTIC_PYTHON (the interpreter, default python3).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
name=dbt-venv
requirements="$root/requirements-dbt.txt"
cache=dbtattic-dbt
venv_variable=DBTATTIC_DBT_VENV
# shellcheck source=scripts/pinned-venv.sh
source "$root/scripts/pinned-venv.sh"

# Fills $1 with a venv of requirements-dbt.txt; anything wrong ends the script.
build_venv() {
  local dir=$1 pip_output=--quiet
  "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' ||
    die "$python is Python $("$python" -c 'import platform; print(platform.python_version())'); dbt-core 1.12 needs 3.10+ (set DBTATTIC_PYTHON)"
  [[ -n $verbose ]] && pip_output=--progress-bar=on
  say "creating a venv in $dir"
  "$python" -m venv "$dir" >&2 ||
    die "$python -m venv failed (on Debian or Ubuntu: apt install python3-venv)"
  say "installing requirements-dbt.txt (a minute or two the first time)"
  "$dir/bin/python" -m pip install "$pip_output" --disable-pip-version-check --no-input \
    --no-deps --only-binary :all: --requirement "$requirements" >&2 ||
    die "pip install -r requirements-dbt.txt failed (pip's output is above)"
  # dbt-core requires dbt-core-experimental-parser, which requirements-dbt.txt leaves out (it says why).
  pip_check "$dir" 'dbt-core [^ ]* requires dbt-core-experimental-parser, which is not installed.'
  "$dir/bin/python" -c 'import dbt.cli.main, dbt.adapters.duckdb' 2>/dev/null ||
    die "dbt or dbt-duckdb does not import in $dir (try: $dir/bin/dbt --version)"
}

make_pinned_venv
