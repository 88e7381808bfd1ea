import type { Json } from '@duckdb/node-api';
import { expect } from 'vitest';
import { openDatabase } from '../../src/store/index.js';

/**
 * Every row of every table of a store (store_meta included), and of the views node_invocation
 * and node_depends_on, in a stable order. Left out: the
 * archive's change stamp in store_meta (store/sync/archive-stamp.ts), which records when the store
 * last caught up, and the size it had when last compacted (store/sync/compact.ts): facts about the
 * file, not anything derived from the archive's content; and node_entry, ingest's memo
 * of entries read (schema/001-tables.sql), which may also remember entries of a manifest dbt
 * rewrote since (test/unit/store/entry-memo.test.ts checks its rows are exact); and
 * node_runtime's windows of sorted times, which hold more or fewer times around a rank as the
 * times came in (the median and p95 read from them are compared).
 */
export type StoreDump = Record<string, Json[][]>;

export async function dumpStore(file: string): Promise<StoreDump> {
  const db = await openDatabase(file, 'read');
  try {
    const tables = (
      await db.connection.runAndReadAll(
        "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema = 'main' AND table_catalog = current_database() AND table_name <> 'node_entry' ORDER BY 1",
      )
    ).getRows();
    const dump: StoreDump = {};
    // And the views with the names and columns of the tables node_block replaced (schema/001-tables.sql).
    for (const [table] of [...tables, ['node_depends_on'], ['node_invocation']]) {
      const where = table === 'store_meta' ? " WHERE key NOT IN ('archive_stamp', 'compacted_bytes')" : '';
      const columns = table === 'node_runtime' ? '* EXCLUDE (median_window, p95_window)' : '*';
      dump[String(table)] = (await db.connection.runAndReadAll(`SELECT ${columns} FROM "${String(table)}"${where} ORDER BY ALL`)).getRowsJson();
    }
    return dump;
  } finally {
    db.close();
  }
}

/** Table by table, so a difference names its table. */
export function expectSameRows(actual: StoreDump, expected: StoreDump): void {
  expect(Object.keys(actual)).toEqual(Object.keys(expected));
  for (const table of Object.keys(expected)) expect(actual[table], `rows of ${table}`).toEqual(expected[table]);
}

/** The invocation ids a store holds, sorted. */
export async function storedInvocations(file: string): Promise<string[]> {
  const db = await openDatabase(file, 'read');
  try {
    return (await db.connection.runAndReadAll('SELECT invocation_id FROM invocation ORDER BY 1')).getRows().map(([id]) => String(id));
  } finally {
    db.close();
  }
}
