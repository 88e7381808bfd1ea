import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { AtticError } from '../errors.js';

/**
 * One open DuckDB file. DuckDB lets one process write a file and refuses every other process,
 * readers included, while it does: write connections stay short and are never held while dbt
 * runs.
 */
export interface Database {
  connection: DuckDBConnection;
  close(): void;
}

export type OpenMode = 'write' | 'read';

export async function openDatabase(file: string, mode: OpenMode): Promise<Database> {
  let instance: DuckDBInstance;
  try {
    instance = await DuckDBInstance.create(file, mode === 'read' ? { access_mode: 'READ_ONLY' } : {});
  } catch (error) {
    throw asStoreError(file, error);
  }
  const connection = await instance.connect();
  return {
    connection,
    close: () => {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

export function isLockError(error: unknown): boolean {
  return error instanceof Error && /Could not set lock on file|Conflicting lock/i.test(error.message);
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
