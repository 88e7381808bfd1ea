import { promises as fs } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Database } from './database.js';
import { STORAGE_VERSION } from './schema.js';

/**
 * Copies the database into a new file that holds only its used blocks. Ingest commits
 * invocation by invocation, and every checkpoint rewrites the row groups it appended to, so a
 * derived file ends with more free blocks than used ones (10,000 nodes x 30 runs: 242 free of
 * 442); DuckDB reuses free blocks but never gives them back. The copy is 51 MB instead of
 * 116 MB, for a few seconds' work at the end of a rebuild.
 */
export async function copyCompacted(connection: DuckDBConnection, target: string): Promise<void> {
  const name = String((await connection.runAndReadAll('SELECT current_database()')).getRows()[0]?.[0]);
  await connection.run(`ATTACH '${target.replaceAll("'", "''")}' AS compacted (STORAGE_VERSION '${STORAGE_VERSION}')`);
  try {
    await connection.run(`COPY FROM DATABASE "${name.replaceAll('"', '""')}" TO compacted`);
  } finally {
    await connection.run('DETACH compacted');
  }
}

export interface StoreSpace {
  totalBlocks: number;
  freeBlocks: number;
  blockSize: number;
}

/** The file's blocks once what was written is checkpointed (before, free blocks are not known yet). */
export async function readSpace(connection: DuckDBConnection): Promise<StoreSpace> {
  await connection.run('CHECKPOINT');
  const row = (await connection.runAndReadAll('SELECT total_blocks, free_blocks, block_size FROM pragma_database_size() WHERE database_name = current_database()')).getRows()[0] ?? [];
  return { totalBlocks: Number(row[0] ?? 0), freeBlocks: Number(row[1] ?? 0), blockSize: Number(row[2] ?? 0) };
}

/**
 * A store ingested run after run levels off near twice the size of the same history copied
 * compacted (10,000 nodes x 30 runs, 10 more runs ingested: 324 blocks, 229 used). Copying
 * runs at about 50 MB/s here (a 53 MB store in 0.86 s), so it waits until a quarter of the
 * file is free: the file stays within 4/3 of its data (the budget is the archive's size, and
 * the data alone is 0.7 of it at 10,000 nodes x 200 runs), and a copy is paid every few runs,
 * not every run. Small stores are never worth the copy.
 */
export const COMPACT_MIN_BYTES = 32 * 1024 * 1024;

export function isWasteful(space: StoreSpace, minBytes = COMPACT_MIN_BYTES): boolean {
  return space.totalBlocks * space.blockSize >= minBytes && space.freeBlocks * 4 >= space.totalBlocks;
}

export interface Compaction {
  fromBytes: number;
  toBytes: number;
}

/**
 * Replaces `file` (open in `db`, whose write lock keeps every other process out) with its
 * compacted copy. The rename happens while the lock is held, so nobody writes to the old file
 * after it was copied; a reader that opens the path next opens the whole new file. A copy that
 * fails (a full disk) is removed and the store is left as it was: compaction only ever saves
 * space, so its failure is not the sync's.
 */
export async function compactInPlace(db: Database, file: string): Promise<Compaction | undefined> {
  // The rebuild prefix: a copy left by a killed process is swept like an abandoned rebuild.
  const copy = `${file}.rebuild-${randomBytes(4).toString('hex')}-compacted`;
  try {
    const fromBytes = (await fs.stat(file)).size;
    await copyCompacted(db.connection, copy);
    const toBytes = (await fs.stat(copy)).size;
    await fs.rename(copy, file);
    return { fromBytes, toBytes };
  } catch {
    return undefined;
  } finally {
    await fs.rm(copy, { force: true });
    await fs.rm(`${copy}.wal`, { force: true });
  }
}
