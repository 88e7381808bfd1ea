import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { AtticError } from '../errors.js';

/** How the wrapped command (normally dbt) ended. `exitCode` is what our process should exit with. */
export type CommandOutcome = {
  exitCode: number;
  /** The signal that killed the command, if one did. */
  signal: string | null;
  startedAt: Date;
  endedAt: Date;
  /** Why the command could not be started; exitCode is then 127. */
  spawnError?: string;
};

export type RunCommandOptions = { cwd: string; env?: NodeJS.ProcessEnv };

/** The shell's convention, so `dbtattic run -- …; echo $?` reads like running the command bare. */
const EXIT_NOT_STARTED = 127;
const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * Runs argv (no shell) with the terminal passed straight through, forwarding SIGINT and SIGTERM,
 * and resolves with the command's own exit status. It never rejects once the command is given:
 * a command that cannot start resolves with exit code 127 and the reason.
 */
export function runCommand(argv: string[], options: RunCommandOptions): Promise<CommandOutcome> {
  const [file, ...args] = argv;
  if (file === undefined || file === '') {
    throw new AtticError('usage', 'No command to run: put the dbt command after `--`, e.g. `dbtattic run -- dbt build`.');
  }
  const startedAt = new Date();
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(file, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: 'inherit' });
    } catch (error) {
      // Node throws synchronously for some arguments it refuses (e.g. EINVAL on Windows .cmd files).
      resolve(notStarted(file, error, startedAt));
      return;
    }
    const stopForwarding = forwardSignals(child, options.env ?? process.env);
    let started = false;
    let startError: unknown;
    child.once('spawn', () => (started = true));
    child.on('error', (error) => {
      if (!started) startError = error;
    });
    // 'close' follows 'error' too, so the listeners are removed on every path.
    child.once('close', (code, signal) => {
      stopForwarding();
      if (startError !== undefined) resolve(notStarted(file, startError, startedAt));
      else resolve({ exitCode: exitCodeOf(code, signal), signal, startedAt, endedAt: new Date() });
    });
  });
}

/** A child killed by a signal exits as a shell reports it: 128 + the signal number. */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (signal !== null) return 128 + (constants.signals[signal] ?? 0);
  return code ?? 1;
}

function notStarted(file: string, error: unknown, startedAt: Date): CommandOutcome {
  const code = error instanceof Error && 'code' in error ? String(error.code) : undefined;
  const reason =
    code === 'ENOENT' ? `${file}: command not found (is it installed and on PATH?)`
    : code === 'EACCES' ? `${file}: permission denied (is it executable?)`
    : `${file}: ${error instanceof Error ? error.message : String(error)}`;
  return { exitCode: EXIT_NOT_STARTED, signal: null, startedAt, endedAt: new Date(), spawnError: reason };
}

/**
 * While the child runs, our process must not die of SIGINT/SIGTERM (we still have to capture
 * target/ afterwards), so it listens and passes them on. Returns the function that stops this.
 */
function forwardSignals(child: ChildProcess, env: NodeJS.ProcessEnv): () => void {
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  let held: NodeJS.Timeout | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signal === 'SIGINT' && keyboardReachesChild()) return;
    if (signal === 'SIGINT') {
      held ??= setTimeout(() => running() && child.kill('SIGINT'), sigintGraceMs(env));
      return;
    }
    if (running()) child.kill(signal);
  };
  for (const signal of FORWARDED_SIGNALS) process.on(signal, onSignal);
  return () => {
    clearTimeout(held);
    for (const signal of FORWARDED_SIGNALS) process.off(signal, onSignal);
  };
}

/**
 * Without a terminal, a SIGINT may have been sent to our whole process group (a CI runner
 * cancelling the job), and dbt, in that group, has it already: passed on at once, it was dbt's
 * second, which aborts the clean-up that writes its partial run_results.json. So it is passed on
 * only if dbt is still running after a grace period (it came to us alone, from `kill`).
 */
function sigintGraceMs(env: NodeJS.ProcessEnv): number {
  const given = Number(env.DBTATTIC_SIGINT_GRACE_MS);
  return Number.isInteger(given) && given >= 0 ? given : 10_000;
}

/**
 * Ctrl-C makes the terminal send SIGINT to its whole foreground process group, and the child is
 * in ours. Sending it again would be dbt's "second Ctrl-C", which aborts the clean-up that writes
 * the partial run_results.json we are here to capture. A SIGINT from `kill` while we are in the
 * foreground is indistinguishable and is not forwarded; that is the lesser loss.
 */
function keyboardReachesChild(): boolean {
  const group = readProcessGroup();
  if (group === undefined) return process.stdin.isTTY === true;
  return group.tpgid > 0 && group.tpgid === group.pgrp;
}

/** Linux only: our process group and the terminal's foreground group, from /proc/self/stat. */
function readProcessGroup(): { pgrp: number; tpgid: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync('/proc/self/stat', 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const pgrp = Number(fields[2]);
  const tpgid = Number(fields[5]);
  return Number.isInteger(pgrp) && Number.isInteger(tpgid) ? { pgrp, tpgid } : undefined;
}
