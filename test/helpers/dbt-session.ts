import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A real dbt that imports itself once (dbt_session.py): for tests that ask dbt many quick
 * questions (`dbt ls -s state:modified+`), where a `dbt` process each would spend most of its
 * time starting Python. Runs are dbt's programmatic entry point, `dbtRunner().invoke(args)`; what
 * the product itself runs (`dbtattic run -- dbt build`) stays a real CLI process.
 */
export const DBT_SESSION_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'dbt_session.py');

export interface DbtSessionResult {
  success: boolean;
  /** What the `dbt` command would exit with: 0, 1 (a result that failed), 2 (an error). */
  exit: 0 | 1 | 2;
  /** dbt's return value when it is a list of strings (ls: the items it prints), else null. */
  result: string[] | null;
  error: string | null;
}

export interface DbtSession {
  /** dbt-core's version, as the session imported it. */
  version: string;
  /** Runs `dbt ...args` in `cwd` with `env` over the session's environment; one at a time, in order. */
  request(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<DbtSessionResult>;
  close(): Promise<void>;
}

const STDERR_TAIL = 4000;

/** Starts `python dbt_session.py` (the venv's python, in `dbtBin`) and waits until dbt is imported. */
export async function startDbtSession(dbtBin: string, env: NodeJS.ProcessEnv = process.env): Promise<DbtSession> {
  const child = spawn(path.join(dbtBin, 'python'), [DBT_SESSION_SCRIPT], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  // A write after the process died fails with EPIPE; the death itself is reported by readLines.
  child.stdin.on('error', () => undefined);
  const lines = readLines(child);
  const ready = JSON.parse(await lines.next()) as { ready: boolean; dbt: string };
  let queue: Promise<unknown> = Promise.resolve();
  const request = (args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<DbtSessionResult> => {
    const run = queue.then(async () => {
      child.stdin.write(`${JSON.stringify({ args, cwd: options.cwd, env: options.env ?? {} })}\n`);
      return JSON.parse(await lines.next()) as DbtSessionResult;
    });
    queue = run.catch(() => undefined);
    return run;
  };
  const close = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const ended = new Promise<void>((resolve) => child.once('close', () => resolve()));
    child.stdin.end();
    await ended;
  };
  return { version: ready.dbt, request, close };
}

/** The session's stdout as lines, one awaited at a time; rejects, with stderr's tail, once the process is gone. */
function readLines(child: ChildProcessWithoutNullStreams): { next(): Promise<string> } {
  let buffered = '';
  let stderr = '';
  let ended: Error | null = null;
  let waiting: { resolve: (line: string) => void; reject: (e: Error) => void } | null = null;
  const deliver = (): void => {
    const at = buffered.indexOf('\n');
    if (waiting && at >= 0) {
      const { resolve } = waiting;
      waiting = null;
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      resolve(line);
    } else if (waiting && ended) {
      const { reject } = waiting;
      waiting = null;
      reject(ended);
    }
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    deliver();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL);
  });
  const end = (why: string): void => {
    ended ??= new Error(`dbt session (${DBT_SESSION_SCRIPT}) ${why}; the end of its stderr:\n${stderr}`);
    deliver();
  };
  child.once('error', (e) => end(`could not run: ${e.message}`));
  child.once('close', (code, signal) => end(`ended (${code ?? signal})`));
  return {
    next: () =>
      new Promise<string>((resolve, reject) => {
        waiting = { resolve, reject };
        deliver();
      }),
  };
}
