import { spawn } from 'node:child_process';
import type { CliIo } from './io.js';
import { escapeForTerminal } from './terminal-text.js';

/**
 * Long output on a terminal goes through a pager, as git's does: DBTATTIC_PAGER, else PAGER,
 * else `less` (with LESS=FRX unless set: quit when it fits, keep colour, leave the screen). Output
 * is held until it is longer than the screen (what fits is shown directly when the command ends);
 * from then on the pager gets it as it is written, waiting for the pager to take it, so a
 * streamed result (a `query` of millions of rows) is never held whole. Never without a
 * terminal, with --no-pager, or with an empty pager or `cat`.
 */
export interface Paging {
  io: CliIo;
  /** Shows what the command wrote, through the pager when it is longer than the screen. */
  finish: () => Promise<void>;
}

export function startPaging(io: CliIo, write: (text: string) => void, enabled: boolean): Paging {
  const command = enabled && io.isTTY ? pagerCommand(io.env) : null;
  if (!command) return { io, finish: async () => undefined };
  let held: string[] = [];
  let lines = 0;
  let pager: Pager | null = null;
  const stdout = (text: string): void => {
    if (pager) return pager.write(text);
    held.push(text);
    lines += text.split('\n').length - 1;
    if (io.rows <= 0 || lines < io.rows) return;
    pager = openPager(command, io.env, write);
    pager.write(held.join(''));
    held = [];
  };
  return {
    io: { ...io, stdout, drain: () => pager?.drained() ?? Promise.resolve() },
    finish: async () => {
      if (pager) await pager.close();
      else write(held.join(''));
    },
  };
}

function pagerCommand(env: Record<string, string | undefined>): string | null {
  const chosen = env.DBTATTIC_PAGER ?? env.PAGER ?? 'less';
  return chosen.trim() === '' || chosen.trim() === 'cat' ? null : chosen;
}

interface Pager {
  write: (text: string) => void;
  drained: () => Promise<void>;
  close: () => Promise<void>;
}

/**
 * The pager reads our output on its stdin and owns the terminal until the reader quits it. It
 * gets what the terminal would: our colours, every other control escaped. A pager that cannot
 * start leaves the output to the terminal; a reader who quits early closes the pipe, no error.
 */
function openPager(command: string, env: Record<string, string | undefined>, write: (text: string) => void): Pager {
  const child = spawn(command, { shell: true, stdio: ['pipe', 'inherit', 'inherit'], env: { ...env, LESS: env.LESS ?? 'FRX', LV: env.LV ?? '-c' } });
  let failed = false;
  // Until the pager has started, what it was given is kept, to be shown directly if it cannot.
  let unconfirmed: string[] | null = [];
  child.once('spawn', () => {
    unconfirmed = null;
  });
  const closed = new Promise<void>((resolve) => {
    child.once('error', () => {
      failed = true;
      write((unconfirmed ?? []).join(''));
      unconfirmed = null;
      resolve();
    });
    child.once('close', () => resolve());
  });
  child.stdin.on('error', () => undefined);
  const gone = (): boolean => failed || child.stdin.destroyed || child.stdin.writableEnded;
  return {
    write: (text) => {
      if (failed) return write(text);
      unconfirmed?.push(text);
      if (!gone()) child.stdin.write(escapeForTerminal(text));
    },
    drained: () =>
      gone() || !child.stdin.writableNeedDrain
        ? Promise.resolve()
        : new Promise((resolve) => {
            child.stdin.once('drain', resolve);
            child.stdin.once('close', resolve);
          }),
    close: async () => {
      if (!gone()) child.stdin.end();
      await closed;
    },
  };
}
