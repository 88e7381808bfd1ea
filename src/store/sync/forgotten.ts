import type { DuckDBConnection } from '@duckdb/node-api';
import { listForgetRecords, listInvocationRecords, listOutputRecordKeys, readForgetRecords, type Backend } from '../../archive/index.js';
import { inTransaction } from '../db/database.js';
import { duckdb } from '../duckdb.js';
import { changeFollowers } from '../derived/node-changes.js';
import { refreshDerivedTables } from '../derived/derived-tables.js';

/**
 * The store follows `forget` (archive/forgotten.ts): rows of a forgotten invocation leave at
 * the next sync, with the capture rows forget removed, then the node and macro versions and
 * compiled code no remaining invocation holds, so the store equals what a rebuild derives.
 * An invocation the archive has records for again (a push re-filed it after the forget) stays.
 */

/** Which forget records to apply: all of them (a full catch-up), those a journal named, or none (right after a capture). */
export type ForgetScope = { all: true } | { keys: readonly string[] };

export async function dropForgottenRows(connection: DuckDBConnection, backend: Backend, scope: ForgetScope): Promise<number> {
  const records = 'all' in scope ? await listForgetRecords(backend) : scope.keys.length > 0 ? await readForgetRecords(backend, scope.keys) : [];
  if (records.length === 0) return 0;
  const named = [...new Set(records.flatMap((r) => r.invocations))];
  const stored = await storedAmong(connection, named);
  // A journal's forget records are newer than any re-filing it already ingested (a re-filing
  // after the forget comes later in the journal): no need to look. Across all forget records,
  // an invocation a push filed again since must stay.
  const gone = 'all' in scope ? await withoutRecords(backend, stored) : stored;
  const captures = [...new Set(records.flatMap((r) => r.captures))];
  const storedCaptures = await storedCapturesAmong(connection, captures);
  if (gone.length === 0 && storedCaptures.length === 0) return 0;
  const [tables, { dropUnheldVersions }] = await Promise.all([perInvocationTables(), import('../ingest/ingest.js')]);
  await inTransaction(connection, async () => {
    // Their successors compare with the manifest before them now.
    const followers = await changeFollowers(connection, gone);
    for (const table of tables)
      await connection.run(
        `DELETE FROM ${table} WHERE invocation_id IN (SELECT unnest($1::VARCHAR[]))`,
        [duckdb.listValue(gone)],
        [duckdb.LIST(duckdb.VARCHAR)],
      );
    for (const table of ['capture_artifact', 'capture'])
      await connection.run(
        `DELETE FROM ${table} WHERE capture_id IN (SELECT unnest($1::VARCHAR[]))`,
        [duckdb.listValue(storedCaptures)],
        [duckdb.LIST(duckdb.VARCHAR)],
      );
    await refreshDerivedTables(connection, gone, followers);
    await dropUnheldVersions(connection);
  });
  return gone.length;
}

async function withoutRecords(backend: Backend, ids: readonly string[]): Promise<string[]> {
  const gone: string[] = [];
  for (const id of ids) {
    const [artifacts, outputs] = await Promise.all([listInvocationRecords(backend, id), listOutputRecordKeys(backend, id)]);
    if (artifacts.length === 0 && outputs.length === 0) gone.push(id);
  }
  return gone;
}

async function storedAmong(connection: DuckDBConnection, ids: readonly string[]): Promise<string[]> {
  const reader = await connection.runAndReadAll(
    'SELECT DISTINCT invocation_id FROM (SELECT invocation_id FROM artifact_capture UNION ALL SELECT invocation_id FROM invocation_output) WHERE invocation_id IN (SELECT unnest($1::VARCHAR[]))',
    [duckdb.listValue(ids)],
    [duckdb.LIST(duckdb.VARCHAR)],
  );
  return reader.getRows().map(([id]) => String(id));
}

async function storedCapturesAmong(connection: DuckDBConnection, ids: readonly string[]): Promise<string[]> {
  const reader = await connection.runAndReadAll(
    'SELECT capture_id FROM capture WHERE capture_id IN (SELECT unnest($1::VARCHAR[]))',
    [duckdb.listValue(ids)],
    [duckdb.LIST(duckdb.VARCHAR)],
  );
  return reader.getRows().map(([id]) => String(id));
}

async function perInvocationTables(): Promise<string[]> {
  // Loaded only when there is something to drop: ingest's modules are a reading command's start-up cost otherwise.
  const [{ PER_INVOCATION_TABLES }, { OUTPUT_TABLES }] = await Promise.all([import('../ingest/artifact-rows.js'), import('../ingest/output-rows.js')]);
  return [...PER_INVOCATION_TABLES, ...OUTPUT_TABLES, 'artifact_capture', 'ingest_problem', 'invocation'];
}
