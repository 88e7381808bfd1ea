/**
 * Waiting for a store another process holds. DuckDB gives the write lock to one process and
 * tells the others at once, without a queue, so a waiter polls. A writer holds the store for a
 * catch-up: a few hundred milliseconds. Polling at most every 250 ms keeps a waiter from
 * sleeping through the gap between two writers: with readers in a loop beside a capture every
 * 0.6 s (VS Code refreshing its views), the slowest read took up to 10 s with polls backing off
 * to 1 s, and some gave up; polling every 250 ms at most, none did.
 */
export const STORE_WAIT_MS = 10_000;

const FIRST_POLL_MS = 25;
const LAST_POLL_MS = 250;

/** Calls `attempt` until `isBusy` says its result is not "held by another process", for at most `waitMs` (0: once); the last result. */
export async function untilFree<T>(waitMs: number, attempt: () => Promise<T>, isBusy: (result: T) => boolean): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (let delay = FIRST_POLL_MS; ; delay = Math.min(delay * 2, LAST_POLL_MS)) {
    const result = await attempt();
    if (!isBusy(result) || Date.now() + delay > deadline) return result;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
