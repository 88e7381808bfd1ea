import type { CliIo } from './io.js';

export interface Progress {
  update: (done: number, total: number) => void;
  stop: () => void;
}

/**
 * A one-line counter on stderr, redrawn in place, only when stderr is a terminal with a width
 * (some CI wrappers report a TTY of 0 columns) and not in CI (CI set, as every CI service
 * sets it: a runner may give its jobs a terminal whose every redraw lands in the log).
 */
export function startProgress(io: CliIo, label: string): Progress {
  const ci = io.env.CI !== undefined && io.env.CI !== '' && io.env.CI !== 'false' && io.env.CI !== '0';
  if (!io.stderrIsTTY || ci) return { update: () => undefined, stop: () => undefined };
  let last = 0;
  let drawn = false;
  return {
    update: (done, total) => {
      const now = Date.now();
      if (now - last < 100 && done < total) return;
      last = now;
      drawn = true;
      const pct = total > 0 ? Math.floor((done / total) * 100) : 100;
      io.stderr(`\r${label} ${done}/${total} (${pct}%)`);
    },
    stop: () => {
      if (drawn) io.stderr('\r\x1b[K');
    },
  };
}

/** Runs `work` with the counter drawn while it reports progress, and cleared however it ends. */
export async function withProgress<T>(io: CliIo, label: string, work: (update: Progress['update']) => Promise<T>): Promise<T> {
  const progress = startProgress(io, label);
  try {
    return await work(progress.update);
  } finally {
    progress.stop();
  }
}
