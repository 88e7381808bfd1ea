import type { DuckDBConnection } from '@duckdb/node-api';
import type { NodeEntryRow } from '../../extract/index.js';
import { RowAppender } from './append.js';

/**
 * Writes the node entries a manifest brought that the node_entry memo lacks (schema/001-tables.sql).
 * Only those of the prior manifest's versions were read, so an entry can be new to the reading
 * and known to the table (a node edited back): the insert skips a digest the table holds.
 */
export async function rememberEntries(connection: DuckDBConnection, rows: readonly NodeEntryRow[]): Promise<void> {
  if (rows.length === 0) return;
  await connection.run('CREATE TEMP TABLE IF NOT EXISTS stage_node_entry AS SELECT * FROM node_entry LIMIT 0');
  try {
    const appender = await RowAppender.open(connection, 'stage_node_entry', 'temp');
    for (const row of rows) appender.append(row);
    appender.close();
    await connection.run(
      `INSERT INTO node_entry SELECT DISTINCT ON (entry_digest) * FROM stage_node_entry AS s
       WHERE NOT EXISTS (SELECT 1 FROM node_entry AS e WHERE e.entry_digest = s.entry_digest)`,
    );
  } finally {
    await connection.run('DELETE FROM stage_node_entry');
  }
}

/** A memo row may outlive nothing it names: it goes with its version or compiled SQL. */
export async function dropOrphanEntries(connection: DuckDBConnection): Promise<void> {
  await connection.run(
    `DELETE FROM node_entry WHERE node_version_id NOT IN (SELECT node_version_id FROM node_version)
       OR (compiled_code_id IS NOT NULL AND compiled_code_id NOT IN (SELECT compiled_code_id FROM compiled_code))`,
  );
}
