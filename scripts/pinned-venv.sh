# Sourced by scripts/dbt-venv.sh and scripts/spark-venv.sh: makes, once, a Python venv of a
# pinned requirements file and prints its bin directory as the only line on stdout.
#
# The venv lives at the path the caller's environment variable names, or by default under
# ~/.cache/<cache>/ named by the requirements file's hash, so new pins make a new venv and a
# second run costs nothing. A venv counts only once its marker (written last, after pip install
# and pip check) holds that hash.
#
# A venv cannot be moved (pip writes its absolute path into every script's #! line), so it is
# built in a directory of its own beside the final path and published by creating the final path
# as a symlink to it. symlink(2) fails if the name exists, so of two concurrent runs one
# publishes and the other removes its copy and uses the winner's: like a git ref, never a
# half-made venv. Progress goes to stderr, and is quiet when stderr is no terminal or CI is set.
#
# The caller sets: name (for messages), requirements (the file), cache (the folder under
# ~/.cache), venv_variable (the name of the variable that overrides the path), and defines
# build_venv DIR, which fills DIR (say, die, pip_check and $python, $digest are here for it);
# then calls make_pinned_venv.

python=${DBTATTIC_PYTHON:-python3}
marker_name=.dbtattic-venv-complete

verbose=
[[ -t 2 && -z ${CI:-} ]] && verbose=1

die() {
  printf '%s: %s\n' "$name" "$1" >&2
  exit 1
}

say() {
  if [[ -n $verbose ]]; then printf '%s: %s\n' "$name" "$1" >&2; fi
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

# pip check in venv $1, but for the lines matching $2 (an expected gap, or nothing).
pip_check() {
  local dir=$1 expected=${2:-} problems
  problems=$("$dir/bin/python" -m pip check --disable-pip-version-check 2>&1 | grep -v -x -e 'No broken requirements found.' ${expected:+-e "$expected"} || true)
  [[ -z $problems ]] || die "pip check found what $(basename "$requirements") lacks on this Python: ${problems//$'\n'/; }"
}

make_pinned_venv() {
  [[ -f $requirements ]] || die "$requirements is missing"
  command -v "$python" >/dev/null 2>&1 || die "$python not found: install Python 3 or set DBTATTIC_PYTHON"
  digest=$(sha256 "$requirements")
  local venv=${!venv_variable:-$HOME/.cache/$cache/venv-${digest:0:12}}
  venv=${venv%/}

  if is_complete "$venv"; then
    printf '%s\n' "$venv/bin"
    return 0
  fi

  local stale=
  if [[ -L $venv ]]; then
    stale=$(readlink "$venv")
  elif [[ -e $venv ]]; then
    die "$venv exists but is not a complete venv of this $(basename "$requirements"): remove it, or set $venv_variable elsewhere"
  fi

  mkdir -p "$(dirname "$venv")"
  build=$(mktemp -d "$venv.XXXXXX")
  chmod 755 "$build"  # mktemp makes it private; a cache may be shared (a CI volume)
  published=
  trap '[[ -n $published ]] || rm -rf "$build"' EXIT
  build_venv "$build"
  printf '%s\n' "$digest" >"$build/$marker_name"

  # A stale link (the pins changed under a path the variable names) is replaced; otherwise the
  # first run to link wins.
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
}
