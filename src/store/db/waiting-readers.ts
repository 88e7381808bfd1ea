import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { processIsGoneOn } from '../../vocab/index.js';

/**
 * Readers waiting for the store. DuckDB's write lock has no queue: captures that follow each
 * other at once (several CI jobs on one runner, a loop of `dbtattic run`) each take the store
 * for their catch-up, and a reader polling between them can find it taken for its whole wait
 * (three back-to-back capture loops: every read gave up after 10 s). A reader that found the
 * store taken says so with a file beside it; a capture then leaves its catch-up to that reader,
 * which catches up on everything anyway, and the lock comes free.
 */
const STALE_MS = 30_000;

function dirOf(store: string): string {
  return `${store}.readers`;
}

/** Marks this process as waiting to read `store`; returns the removal of the mark. */
export function markWaiting(store: string): () => void {
  const dir = dirOf(store);
  const file = path.join(dir, `${process.pid}~${hostname()}~${randomBytes(4).toString('hex')}`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, '');
  } catch {
    // A store that cannot be written: no capture catches it up either.
    return () => undefined;
  }
  return () => rmSync(file, { force: true });
}

/** Whether a live reader waits for `store`: one of this machine whose process is there, another's if its mark is recent. */
export function readersWaiting(store: string): boolean {
  let names: string[];
  try {
    names = readdirSync(dirOf(store));
  } catch {
    return false;
  }
  return names.some((name) => isWaiting(path.join(dirOf(store), name), name));
}

function isWaiting(file: string, name: string): boolean {
  const [pid, host] = name.split('~');
  if (processIsGoneOn(host, pid)) {
    rmSync(file, { force: true });
    return false;
  }
  const modified = statSync(file, { throwIfNoEntry: false })?.mtimeMs;
  return modified !== undefined && Date.now() - modified < STALE_MS;
}
