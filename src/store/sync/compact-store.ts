import { existsSync, promises as fs, type Stats } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { isLockError, WRITE_MEMORY_LIMIT } from '../db/database.js';
import { STORE_WAIT_MS, untilFree } from '../db/busy-wait.js';
import { duckdb } from '../duckdb.js';
import { checkDuckdbPath } from '../db/duckdb-path.js';
import { copyCompacted, isWasteful, readCompactedBytes, readSpace, type Compaction } from './compact.js';
import { rebuildFileOf, removeAbandonedRebuilds } from '../db/store-file.js';
import { claimCompaction, type CompactionClaim } from './compaction-claim.js';

export type CompactOutcome =
  | ({ status: 'compacted' } & Compaction)
  | { status: 'not-needed'; bytes: number; freeBytes: number }
  | { status: 'missing' }
  /** Another process writes the store, or compacts it already. */
  | { status: 'busy' }
  /** Written by another process between the copy and the swap: the copy was thrown away. */
  | { status: 'changed' };

/**
 * Copies the store compacted (compact.ts) and swaps the copy in, without keeping anyone waiting
 * for the copy: at 10,000 nodes x 1,000 runs it takes 41-48 s, which capture paid in front of
 * dbt. The store is attached read-only for the copy, so readers go on reading it (they share the
 * lock) and a capture that finds it held leaves its ingest to the next reader, as it does for
 * any busy store. Only the swap takes the write lock, and it swaps only when the file is as it
 * was copied: every write either leaves a WAL or checkpoints into the file (new mtime), and an
 * open that writes nothing changes neither.
 */
export interface CompactOptions {
  /** Copy even a store that is not wasteful. */
  force?: boolean;
  /** Between the copy and the swap, with no lock held: a test's way to write or read there. */
  afterCopy?: () => Promise<unknown>;
}

export async function compactStore(file: string, options: CompactOptions = {}): Promise<CompactOutcome> {
  if (!existsSync(file)) return { status: 'missing' };
  const claim = await claimCompaction(file);
  if (!claim) return { status: 'busy' };
  await removeAbandonedRebuilds(file);
  try {
    return await copyAndSwap(file, claim, options);
  } finally {
    await claim.release();
  }
}

async function copyAndSwap(file: string, claim: CompactionClaim, options: CompactOptions): Promise<CompactOutcome> {
  // The rebuild prefix: what a killed compaction leaves is swept like an abandoned rebuild.
  const copy = `${rebuildFileOf(file)}-compacted`;
  const instance = await duckdb.DuckDBInstance.create(':memory:', { memory_limit: WRITE_MEMORY_LIMIT, temp_directory: `${copy}.tmp` });
  const connection = await instance.connect();
  try {
    if (existsSync(`${file}.wal`) || !(await attach(connection, file, 'READ_ONLY'))) return { status: 'busy' };
    const copied = await fs.stat(file);
    const space = await readSpace(connection, 'store');
    if (!options.force && !isWasteful(space, await readCompactedBytes(connection, 'store'))) {
      return { status: 'not-needed', bytes: copied.size, freeBytes: space.freeBlocks * space.blockSize };
    }
    await copyCompacted(connection, copy, 'store');
    await connection.run('DETACH store');
    await options.afterCopy?.();
    await claim.refresh();
    if (!(await attachWhenFree(connection, file))) return { status: 'busy' };
    if (!sameFile(copied, await fs.stat(file)) || existsSync(`${file}.wal`)) return { status: 'changed' };
    const toBytes = (await fs.stat(copy)).size;
    // Renamed while the write lock is held: nobody writes the old file after it was copied.
    await fs.rename(copy, file);
    return { status: 'compacted', fromBytes: copied.size, toBytes };
  } finally {
    connection.closeSync();
    instance.closeSync();
    for (const leftover of [copy, `${copy}.wal`, `${copy}.tmp`]) await fs.rm(leftover, { force: true, recursive: true });
  }
}

/**
 * The write lock for the swap. Readers hold the store a moment (a query, a report); the copy
 * took most of a minute at 1,000 runs: worth waiting a little for them, as a reading command
 * waits for a writer.
 */
function attachWhenFree(connection: DuckDBConnection, file: string): Promise<boolean> {
  return untilFree(
    STORE_WAIT_MS,
    () => attach(connection, file, 'READ_WRITE'),
    (attached) => !attached,
  );
}

/** False when another process holds a lock that keeps this mode out. */
async function attach(connection: DuckDBConnection, file: string, mode: 'READ_ONLY' | 'READ_WRITE'): Promise<boolean> {
  try {
    await connection.run(`ATTACH '${checkDuckdbPath(file).replaceAll("'", "''")}' AS store (${mode})`);
    return true;
  } catch (error) {
    if (isLockError(error)) return false;
    throw error;
  }
}

const sameFile = (a: Stats, b: Stats) => a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
