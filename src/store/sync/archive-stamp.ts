import { existsSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { readChangeStamp, type Backend } from '../../archive/index.js';
import { openDatabase, type Database } from '../db/database.js';
import { loadSchemaSql } from '../schema.js';

/**
 * A reading command's start-up on a store that is already current. Catching up lists every
 * record of the archive (hundreds of folders after a few hundred runs) and opens the store
 * for writing; neither is needed when nothing was filed since the last full catch-up. That is
 * told by the archive's change stamp (archive/change-stamp.ts), taken before the catch-up's
 * listing and kept in the store beside its schema version.
 */
const STAMP_KEY = 'archive_stamp';

/** After a full catch-up: the stamp read before its listing (null: nothing to trust next time). */
export async function keepArchiveStamp(connection: DuckDBConnection, stamp: string | null): Promise<void> {
  if (stamp) await connection.run('INSERT OR REPLACE INTO store_meta VALUES ($1, $2)', [STAMP_KEY, stamp]);
  else await connection.run('DELETE FROM store_meta WHERE key = $1', [STAMP_KEY]);
}

/**
 * The store opened for reading when it is current: its schema is this version's, the archive's
 * stamp is the one it kept, and no damaged invocation waits to be read again. Otherwise null,
 * and the caller catches up as usual.
 */
export async function openIfCurrent(backend: Backend, file: string): Promise<Database | null> {
  if (!existsSync(file)) return null;
  const stamp = await readChangeStamp(backend);
  if (!stamp) return null;
  const db = await openDatabase(file, 'read').catch(() => null);
  if (!db) return null;
  if (await isCurrent(db.connection, stamp).catch(() => false)) return db;
  db.close();
  return null;
}

async function isCurrent(connection: DuckDBConnection, stamp: string): Promise<boolean> {
  const reader = await connection.runAndReadAll(
    `SELECT (SELECT value FROM store_meta WHERE key = 'schema_version') AS schema_version,
            (SELECT value FROM store_meta WHERE key = $1) AS stamp,
            EXISTS (SELECT 1 FROM ingest_problem WHERE kind = 'damaged') AS damaged`,
    [STAMP_KEY],
  );
  const row = reader.getRowObjectsJson()[0];
  return row?.schema_version === loadSchemaSql().version && row.stamp === stamp && row.damaged === false;
}
