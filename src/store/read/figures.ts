import type { StoreFigures } from '../../answers/index.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import { readStoreDamage } from '../db/damage.js';

export type { StoreFigures };

export async function readStoreFigures(connection: DuckDBConnection): Promise<StoreFigures> {
  const tables = (
    await connection.runAndReadAll(
      "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema = 'main' AND table_catalog = current_database() ORDER BY table_name",
    )
  )
    .getRows()
    .map(([name]) => String(name));
  const rows: Record<string, number> = {};
  for (const table of tables) {
    rows[table] = Number((await connection.runAndReadAll(`SELECT count(*) FROM "${table}"`)).getRows()[0]?.[0] ?? 0);
  }
  // Views over node_block and run_history (schema/001-tables.sql), counted as the relations users query.
  for (const view of ['node_invocation', 'node_depends_on', 'run_result']) {
    rows[view] = Number((await connection.runAndReadAll(`SELECT count(*) FROM ${view}`)).getRows()[0]?.[0] ?? 0);
  }
  const version = (await connection.runAndReadAll("SELECT value FROM store_meta WHERE key = 'schema_version'")).getRows()[0]?.[0];
  return {
    schemaVersion: typeof version === 'string' ? version : null,
    rows,
    nodeVersions: rows.node_version ?? 0,
    nodeRows: rows.node_invocation ?? 0,
    problems: rows.ingest_problem ?? 0,
    damaged: await damagedNames(connection),
  };
}

async function damagedNames(connection: DuckDBConnection): Promise<string[]> {
  const damage = await readStoreDamage(connection);
  return [...damage.invocations, ...damage.records.map((key) => `record ${key}`)];
}
