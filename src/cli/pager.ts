import { spawn } from 'node:child_process';
import type { CliIo } from './io.js';
import { escapeForTerminal } from './terminal-text.js';

/**
 * Long output on a terminal goes through a pager, as git's does: DBTATTIC_PAGER, else PAGER,
 * else `less` (with LESS=FRX unless set: quit when it fits, keep colour, leave the screen). The
 * command's stdout is held until it ends, then shown directly when it fits the screen. Never
 * without a terminal, with --no-pager, or with an empty pager or `cat`.
 */
export interface Paging {
  io: CliIo;
  /** Shows what the command wrote, through the pager when it is longer than the screen. */
  finish: () => Promise<void>;
}

export function startPaging(io: CliIo, write: (text: string) => void, enabled: boolean): Paging {
  const pager = enabled && io.isTTY ? pagerCommand(io.env) : null;
  if (!pager) return { io, finish: async () => undefined };
  const held: string[] = [];
  return {
    io: { ...io, stdout: (text) => void held.push(text) },
    finish: async () => {
      const text = held.join('');
      if (fitsScreen(text, io.rows)) write(text);
      // The pager gets what the terminal would: our colours, every other control escaped.
      else await runPager(pager, escapeForTerminal(text), io.env, write);
    },
  };
}

function pagerCommand(env: Record<string, string | undefined>): string | null {
  const chosen = env.DBTATTIC_PAGER ?? env.PAGER ?? 'less';
  return chosen.trim() === '' || chosen.trim() === 'cat' ? null : chosen;
}

function fitsScreen(text: string, rows: number): boolean {
  if (rows <= 0) return true;
  return text.split('\n').length - 1 < rows;
}

/** The pager reads our output on its stdin and owns the terminal until the reader quits it. */
function runPager(command: string, text: string, env: Record<string, string | undefined>, write: (text: string) => void): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(command, { shell: true, stdio: ['pipe', 'inherit', 'inherit'], env: { ...env, LESS: env.LESS ?? 'FRX', LV: env.LV ?? '-c' } });
    child.once('error', () => {
      write(text);
      resolve();
    });
    child.once('close', () => resolve());
    // A reader who quits early closes the pipe: that is no error.
    child.stdin.on('error', () => undefined);
    child.stdin.end(text);
  });
}
