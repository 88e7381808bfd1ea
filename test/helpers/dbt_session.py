"""One long-lived dbt for the tests that ask a real dbt many small questions (test/helpers/dbt-session.ts).

Each `dbt` process spends about 3 s starting (importing dbt, then generating its serialisers and
schemas on first use) before its question takes a fraction of a second; this one starts once,
then answers one JSON request per line on stdin, {"args": [...], "cwd": "...", "env": {...}},
with one JSON line on stdout: {"success": bool, "exit": 0|1|2, "result": [...] | null, "error": str | null}.
Each request runs through dbt's documented programmatic entry point, `dbtRunner().invoke(args)`,
in `cwd`, with `env` laid over this process's environment for that call only.

- A fresh dbtRunner per request: it is cheap (the cost is the import), and nothing of one
  invocation's runner (a manifest handed in, callbacks) can leak into the next. dbt itself resets
  its flags, invocation context and adapters at each invocation (cli/requires.py).
- `exit` is what the `dbt` command would exit with: 0 success, 1 a result that failed
  (ResultExit), 2 an exception (ExceptionExit, bad usage).
- `result` is dbt's own return value where it is a list of strings (ls: the printed items, as
  `--output` formats them), else null; never parsed from printed text.
- stdout is the protocol: file descriptor 1 is pointed at stderr before dbt is imported, so
  everything dbt prints (its console log, ls's items) lands on stderr, and only this module
  writes to the original stdout.

Checked side by side with the CLI (dbt-core 1.12.6, examples/duckshop built, target/ copied as
state A; macros/cents_to_amount.sql then edited; target/ after a `dbt ls` copied as state B):
`dbt -q ls -s state:modified+ --state S --output json --output-keys unique_id` gave, from `dbt`
processes and from five consecutive requests to one session (A, B, B with
DBTATTIC_EXAMPLE_CURRENCY=USD, A, B), the same lists item by item, in the same order: 33 ids
(models using the macro and their descendants, their tests, a unit test, an exposure) against A,
0 against B. With DBT_STATE=A in one request's env and no --state, 33 as the CLI; the next
request without it exited 2, "Got a state selector method, but no comparison manifest", as the
CLI does: the env is the request's alone. Time on a loaded 2-core machine: about 7 s a `dbt ls`
process, 10.5 s for the session's start and all five requests.
"""

import json
import os
import sys

# Before dbt is imported, so no stream of dbt's can hold the original stdout.
_protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)
sys.stdout = sys.stderr

from dbt.cli.main import dbtRunner  # noqa: E402  (after the redirect above, on purpose)
from dbt.version import __version__ as dbt_version  # noqa: E402


def reply(message):
    _protocol.write(json.dumps(message) + "\n")
    _protocol.flush()


def exit_code(res):
    if res.success:
        return 0
    return 2 if res.exception is not None else 1


def invoke(request):
    args = request["args"]
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ValueError("args must be a list of strings")
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    try:
        os.environ.update({str(k): str(v) for k, v in (request.get("env") or {}).items()})
        os.chdir(request.get("cwd") or saved_cwd)
        res = dbtRunner().invoke(args)
    finally:
        # dbt loads a .env of the project into os.environ: that goes too.
        os.environ.clear()
        os.environ.update(saved_env)
        os.chdir(saved_cwd)
    result = res.result if isinstance(res.result, list) and all(isinstance(r, str) for r in res.result) else None
    error = None if res.exception is None else f"{type(res.exception).__name__}: {res.exception}"
    return {"success": bool(res.success), "exit": exit_code(res), "result": result, "error": error}


def main():
    reply({"ready": True, "dbt": str(dbt_version)})
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply(invoke(json.loads(line)))
        except Exception as e:  # a malformed request; dbt's own failures come back in res
            reply({"success": False, "exit": 2, "result": None, "error": f"{type(e).__name__}: {e}"})


if __name__ == "__main__":
    main()
