import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

export type ProcessEnd = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

export type WatchedProcess = {
  child: ChildProcess;
  /** Resolves once stdout contains `text`; rejects if the process ends first. */
  waitForOutput(text: string): Promise<void>;
  ended: Promise<ProcessEnd>;
  stdout(): string;
};

/**
 * Starts a process with piped output that a test can wait on, so signal tests act on what the
 * process has printed (it has reached a given step) rather than on elapsed time.
 */
export function startWatched(file: string, args: string[], options: SpawnOptions = {}): WatchedProcess {
  const child = spawn(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    for (const waiter of waiters.filter((w) => stdout.includes(w.text))) waiter.resolve();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const ended = new Promise<ProcessEnd>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  const waitForOutput = (text: string): Promise<void> =>
    new Promise((resolve, reject) => {
      if (stdout.includes(text)) return resolve();
      waiters.push({ text, resolve });
      void ended.then(
        (end) => reject(new Error(`process ended (${end.code ?? end.signal}) before printing ${JSON.stringify(text)}:\n${end.stdout}\n${end.stderr}`)),
        reject,
      );
    });
  return { child, waitForOutput, ended, stdout: () => stdout };
}
