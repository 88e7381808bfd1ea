import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { AtticError } from '../errors.js';

/** How the wrapped command (normally dbt) ended. `exitCode` is what our process should exit with. */
export type CommandOutcome = {
  exitCode: number;
  /** The signal that killed the command, if one did. */
  signal: string | null;
  /** The first SIGINT or SIGTERM that interrupted the run (received or delivered by the terminal). */
  interruptedBy: NodeJS.Signals | null;
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
 * Runs argv (no shell) with the terminal passed straight through and resolves with the
 * command's own exit status, or 128+signal (130, 143) when an interrupt made it fail. It never
 * rejects once the command is given: a command that cannot start resolves with exit code 127.
 *
 * dbt must get exactly one interrupt, whoever sends it: a second one aborts the clean-up in
 * which dbt writes the partial run_results.json we are here to capture. So:
 * - in the foreground of a terminal, dbt stays in our process group, where Ctrl-C reaches it
 *   directly from the terminal; a SIGINT is then never passed on (SIGTERM is);
 * - anywhere else (CI, a script, a background job), dbt gets a process group of its own, which a
 *   signal to our group (a CI runner cancelling the job) does not reach, and each SIGINT or
 *   SIGTERM we receive, to us alone or to our group, is passed on at once.
 */
export function runCommand(argv: string[], options: RunCommandOptions): Promise<CommandOutcome> {
  const [file, ...args] = argv;
  if (file === undefined || file === '') {
    throw new AtticError('usage', 'No command to run: put the dbt command after `--`, e.g. `dbtattic run -- dbt build`.');
  }
  const startedAt = new Date();
  const foreground = keyboardReachesChild();
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      // On Windows `detached` opens a console of its own, and there are no process groups to escape.
      child = spawn(file, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: 'inherit', detached: !foreground && process.platform !== 'win32' });
    } catch (error) {
      // Node throws synchronously for some arguments it refuses (e.g. EINVAL on Windows .cmd files).
      resolve(notStarted(file, error, startedAt));
      return;
    }
    const forwarding = forwardSignals(child, foreground);
    let started = false;
    let startError: unknown;
    child.once('spawn', () => (started = true));
    child.on('error', (error) => {
      if (!started) startError = error;
    });
    // 'close' follows 'error' too, so the listeners are removed on every path.
    child.once('close', (code, signal) => {
      const interruptedBy = forwarding.stop();
      if (startError !== undefined) resolve(notStarted(file, startError, startedAt));
      else resolve({ exitCode: interruptedExit(exitCodeOf(code, signal), interruptedBy), signal, interruptedBy, startedAt, endedAt: new Date() });
    });
  });
}

/**
 * An interrupted run that failed exits as a shell reports an interrupted command, 128+signal
 * (dbt itself exits 2 after a Ctrl-C), so CI tells a cancelled job from a failed one; one that
 * finished cleanly despite the interrupt keeps its 0.
 */
function interruptedExit(exitCode: number, interruptedBy: NodeJS.Signals | null): number {
  if (interruptedBy === null || exitCode === 0 || exitCode > 128) return exitCode;
  return 128 + (constants.signals[interruptedBy] ?? 0);
}

/** A child killed by a signal exits as a shell reports it: 128 + the signal number. */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (signal !== null) return 128 + (constants.signals[signal] ?? 0);
  return code ?? 1;
}

function notStarted(file: string, error: unknown, startedAt: Date): CommandOutcome {
  const code = error instanceof Error && 'code' in error ? String(error.code) : undefined;
  const reason =
    code === 'ENOENT'
      ? `${file}: command not found (is it installed and on PATH?)`
      : code === 'EACCES'
        ? `${file}: permission denied (is it executable?)`
        : `${file}: ${error instanceof Error ? error.message : String(error)}`;
  return { exitCode: EXIT_NOT_STARTED, signal: null, interruptedBy: null, startedAt, endedAt: new Date(), spawnError: reason };
}

/**
 * While the child runs, our process must not die of SIGINT/SIGTERM (we still have to capture
 * target/ afterwards), so it listens, and passes them on as runCommand says. Should our process
 * exit while the child still runs, the child, in a group of its own, gets a SIGTERM rather than
 * outliving us unseen (a SIGKILL to us alone cannot be seen: README says so).
 */
function forwardSignals(child: ChildProcess, foreground: boolean): { stop: () => NodeJS.Signals | null } {
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  let interruptedBy: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals): void => {
    interruptedBy ??= signal;
    if (signal === 'SIGINT' && foreground) return;
    if (running()) child.kill(signal);
  };
  const onExit = (): void => {
    if (!foreground && running()) child.kill('SIGTERM');
  };
  for (const signal of FORWARDED_SIGNALS) process.on(signal, onSignal);
  process.once('exit', onExit);
  return {
    stop: () => {
      for (const signal of FORWARDED_SIGNALS) process.off(signal, onSignal);
      process.off('exit', onExit);
      return interruptedBy;
    },
  };
}

/**
 * Whether we are in the foreground of a terminal, where Ctrl-C makes the terminal send SIGINT
 * to our whole process group, the child included. A SIGINT from `kill` while we are there is
 * indistinguishable and is not passed on; that is the lesser loss.
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
