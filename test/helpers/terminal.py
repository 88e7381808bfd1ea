"""Runs a command on a new pseudo-terminal, in its foreground process group, as an interactive
shell would; once the output shows WAIT_FOR, types Ctrl-C. The terminal's line discipline then
sends SIGINT to the whole foreground group (the command and every child it did not detach),
exactly as a user's Ctrl-C does. Prints one JSON line: exit_code, interrupted, output.

usage: terminal.py ARGV_JSON CWD WAIT_FOR [DELAY_S]   (environment passed through)

DELAY_S: seconds between seeing WAIT_FOR and typing Ctrl-C (a real dbt prints START before its
query reaches the database, and a Ctrl-C in between is lost in dbt's own race).
"""
import fcntl
import json
import os
import pty
import select
import signal
import struct
import sys
import termios
import time

TIMEOUT_S = 120


def main():
    argv, cwd, wait_for = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3].encode()
    delay = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
    seen_at = None
    pid, master = pty.fork()
    if pid == 0:
        # A terminal of 0 columns confuses progress displays: give it a usual size.
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        os.chdir(cwd)
        os.execvp(argv[0], argv)
    output, interrupted = b"", False
    while True:
        if not interrupted and seen_at is not None and time.monotonic() - seen_at >= delay:
            os.write(master, b"\x03")
            interrupted = True
        waiting = seen_at is not None and not interrupted
        ready, _, _ = select.select([master], [], [], 0.05 if waiting else TIMEOUT_S)
        if not ready and waiting:
            continue
        if not ready:
            os.killpg(pid, signal.SIGKILL)
            break
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the last process holding the terminal has closed it
            break
        if not data:
            break
        output += data
        if seen_at is None and wait_for in output:
            seen_at = time.monotonic()
    _, status = os.waitpid(pid, 0)
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)
    print(json.dumps({"exit_code": code, "interrupted": interrupted, "output": output.decode("utf8", "replace")}))


main()
