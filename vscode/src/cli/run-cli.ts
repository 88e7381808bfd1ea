import { spawn } from 'node:child_process';

/** What one call of the CLI left: its exit code and output, or why it could not start. */
export interface CliOutcome {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Set when the process never ran (ENOENT: no such executable; EACCES: not executable). */
  spawnError?: NodeJS.ErrnoException;
}

export interface CliCommand {
  /** The executable: a name looked up on PATH or a path. */
  executable: string;
  /** The dbt project directory; the CLI finds the store from there as in a shell. */
  cwd: string;
  env?: NodeJS.ProcessEnv;
}

export type CliRunner = (args: string[]) => Promise<CliOutcome>;

/**
 * A runner that calls the CLI one command at a time: two reading commands at once would each
 * catch the store up and the second would wait on the first's lock (exit 5 after 10 s).
 */
export function serialCliRunner(command: CliCommand, onDone?: (args: string[], outcome: CliOutcome) => void): CliRunner {
  let queue: Promise<unknown> = Promise.resolve();
  return (args) => {
    const call = queue
      .then(() => runOnce(command, args))
      .then((outcome) => {
        onDone?.(args, outcome);
        return outcome;
      });
    queue = call.catch(() => undefined);
    return call;
  };
}

function runOnce(command: CliCommand, args: string[]): Promise<CliOutcome> {
  // NO_COLOR and no terminal: plain text, no pager, no progress on stderr.
  const env = { ...(command.env ?? process.env), NO_COLOR: '1', DBTATTIC_PAGER: 'cat' };
  return new Promise((resolve) => {
    const child = spawn(command.executable, args, { cwd: command.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error: NodeJS.ErrnoException) => resolve({ exitCode: null, stdout: '', stderr: '', spawnError: error }));
    child.on('close', (code) => resolve({ exitCode: code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}
