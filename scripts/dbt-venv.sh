#!/usr/bin/env bash
# Makes, once, a Python venv holding the dbt pinned in requirements-dbt.txt, and prints its bin
# directory as the only line on stdout (issue 43: tests and examples that run a real dbt):
#
#   bin=$(scripts/dbt-venv.sh) && "$bin/dbt" --version
#
# The venv lives at $DBTATTIC_DBT_VENV, or by default under ~/.cache/dbtattic-dbt/ named by the
# requirements file's hash, so new pins make a new venv and a second run costs nothing. A venv
# counts only once its marker (written last, after pip install and pip check) holds that hash.
#
# A venv cannot be moved (pip writes its absolute path into every script's #! line), so it is
# built in a directory of its own beside the final path and published by creating the final path
# as a symlink to it. symlink(2) fails if the name exists, so of two concurrent runs one
# publishes and the other removes its copy and uses the winner's: like a git ref, never a
# half-made venv. Progress goes to stderr, and is quiet when stderr is no terminal or CI is set.
#
# Env: DBTATTIC_DBT_VENV (the venv path), DBTATTIC_PYTHON (the interpreter, default python3).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
requirements="$root/requirements-dbt.txt"
python=${DBTATTIC_PYTHON:-python3}
marker_name=.dbtattic-venv-complete
# dbt-core requires dbt-core-experimental-parser, which requirements-dbt.txt leaves out (it says why).
expected_check_line='dbt-core [^ ]* requires dbt-core-experimental-parser, which is not installed.'

verbose=
[[ -t 2 && -z ${CI:-} ]] && verbose=1

die() {
  printf 'dbt-venv: %s\n' "$1" >&2
  exit 1
}

say() {
  if [[ -n $verbose ]]; then printf 'dbt-venv: %s\n' "$1" >&2; fi
}

# The marker holds the requirements hash; a venv whose interpreter has gone does not count.
is_complete() {
  local venv=$1
  [[ -f $venv/$marker_name && -x $venv/bin/python ]] && [[ $(<"$venv/$marker_name") == "$digest" ]]
}

# sha256sum on Linux, shasum on macOS; Python (slower to start) where neither is.
sha256() {
  local out
  if out=$(sha256sum "$1" 2>/dev/null) || out=$(shasum -a 256 "$1" 2>/dev/null); then
    printf '%s\n' "${out%% *}"
  else
    "$python" -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' "$1"
  fi
}

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
  local problems
  problems=$("$dir/bin/python" -m pip check --disable-pip-version-check 2>&1 | grep -v -x -e "$expected_check_line" -e 'No broken requirements found.' || true)
  [[ -z $problems ]] || die "pip check found what requirements-dbt.txt lacks on this Python: ${problems//$'\n'/; }"
  "$dir/bin/python" -c 'import dbt.cli.main, dbt.adapters.duckdb' 2>/dev/null ||
    die "dbt or dbt-duckdb does not import in $dir (try: $dir/bin/dbt --version)"
  printf '%s\n' "$digest" >"$dir/$marker_name"
}

[[ -f $requirements ]] || die "$requirements is missing"
command -v "$python" >/dev/null 2>&1 || die "$python not found: install Python 3.10+ or set DBTATTIC_PYTHON"
digest=$(sha256 "$requirements")
venv=${DBTATTIC_DBT_VENV:-$HOME/.cache/dbtattic-dbt/venv-${digest:0:12}}
venv=${venv%/}

if is_complete "$venv"; then
  printf '%s\n' "$venv/bin"
  exit 0
fi

stale=
if [[ -L $venv ]]; then
  stale=$(readlink "$venv")
elif [[ -e $venv ]]; then
  die "$venv exists but is not a complete venv of this requirements-dbt.txt: remove it, or set DBTATTIC_DBT_VENV elsewhere"
fi

mkdir -p "$(dirname "$venv")"
build=$(mktemp -d "$venv.XXXXXX")
chmod 755 "$build"  # mktemp makes it private; a cache may be shared (a CI volume)
published=
trap '[[ -n $published ]] || rm -rf "$build"' EXIT
build_venv "$build"

# A stale link (the pins changed under a DBTATTIC_DBT_VENV path) is replaced; otherwise the first
# run to link wins.
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
