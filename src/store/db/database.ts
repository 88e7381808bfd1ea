import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { AtticError, isAtticError } from '../../errors.js';
import { duckdb } from '../duckdb.js';
import { checkDuckdbPath } from './duckdb-path.js';
import { STORAGE_VERSION } from '../schema.js';

/**
 * One open DuckDB file. DuckDB lets one process write a file and refuses every other process,
 * readers included, while it does: write connections stay short and are never held while dbt
 * runs.
 */
export interface Database {
  connection: DuckDBConnection;
  /** Another connection to the same open database (its own transactions); closed with it. */
  connect(): Promise<DuckDBConnection>;
  close(): void;
}

export type OpenMode = 'write' | 'read';

/**
 * Writing is ingest: appends in committed batches, which need little memory. Left at DuckDB's
 * default (80% of RAM), the buffer pool keeps every written block cached, and ingesting a
 * 500 MB manifest peaked near 1.8 GB; bounded, it peaks at 1.4 GB, of which the manifest's own
 * bytes are 500 MB. Readers keep the default: views over long histories want memory.
 */
export const WRITE_MEMORY_LIMIT = process.env.DBTATTIC_STORE_MEMORY_LIMIT ?? '256MB';

/**
 * One thread for the writer. Ingest's statements each touch one invocation or a batch of them,
 * too little for a second thread to share, and DuckDB's idle worker spins on its task queue's
 * lock while our thread is busy between statements: at 10,000 nodes, one capture after 20 runs
 * took 3.13 -> 3.04 s with 3.3 -> 2.8 s of user CPU, and a rebuild of the 20 runs 35-41 -> 31-32 s
 * (alternating trials, 2 cores). Readers keep DuckDB's default: their scans over a long history
 * do share (v_latest_edges after 20 runs: 0.36 s with two threads, 0.40 s with one).
 */
const WRITE_THREADS = '1';

export async function openDatabase(file: string, mode: OpenMode): Promise<Database> {
  let instance: DuckDBInstance;
  try {
    const config: Record<string, string> =
      mode === 'read'
        ? { access_mode: 'READ_ONLY' }
        : { memory_limit: WRITE_MEMORY_LIMIT, storage_compatibility_version: STORAGE_VERSION, threads: WRITE_THREADS };
    instance = await duckdb.DuckDBInstance.create(checkDuckdbPath(file), config);
  } catch (error) {
    throw asStoreError(file, error);
  }
  const connection = await instance.connect();
  const others: DuckDBConnection[] = [];
  let closed = false;
  return {
    connection,
    connect: async () => {
      const other = await instance.connect();
      others.push(other);
      return other;
    },
    // Once: a store opened ahead of a catch-up (catch-up-ahead.ts) may be let go twice.
    close: () => {
      if (closed) return;
      closed = true;
      for (const other of others) other.closeSync();
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/** The store opened, or the error that says another process holds it; any other failure is thrown. */
export async function openUnlessBusy(file: string, mode: OpenMode): Promise<Database | StoreBusy> {
  return openDatabase(file, mode).catch((error: unknown) => {
    if (isStoreBusy(error)) return error;
    throw error;
  });
}

/** The error of a store held by another process (store-busy). */
export type StoreBusy = AtticError & { code: 'store-busy' };

export function isStoreBusy(value: unknown): value is StoreBusy {
  return isAtticError(value) && value.code === 'store-busy';
}

/** DuckDB could not get the memory a statement needed, within the writer's limit (WRITE_MEMORY_LIMIT). */
export function isOutOfMemory(error: unknown): boolean {
  return /could not allocate|out of memory/i.test(error instanceof Error ? error.message : String(error));
}

export function isLockError(error: unknown): boolean {
  return error instanceof Error && /Could not set lock on file|Conflicting lock|Resource temporarily unavailable/i.test(error.message);
}

function asStoreError(file: string, error: unknown): unknown {
  if (isLockError(error)) {
    return new AtticError('store-busy', `The store ${file} is in use by another process (${lockHolder(error)}). Try again when it finishes.`);
  }
  return error;
}

function lockHolder(error: unknown): string {
  const pid = error instanceof Error ? /PID (\d+)/.exec(error.message)?.[1] : undefined;
  return pid ? `PID ${pid}` : 'another process';
}

/** Runs `work` in a transaction; on failure rolls back explicitly (a failed COMMIT rolls back silently). */
export async function inTransaction<T>(connection: DuckDBConnection, work: () => Promise<T>): Promise<T> {
  await connection.run('BEGIN TRANSACTION');
  try {
    const result = await work();
    await connection.run('COMMIT');
    return result;
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
