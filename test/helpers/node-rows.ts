import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * Edits of an invocation's node rows for tests that build a history by hand. node_invocation
 * and node_depends_on are views over node_block (schema/001-tables.sql), which DuckDB cannot
 * update: these write the tables under them so that the views show the edit.
 */

let edits = 0;

/** A copy of `from`'s manifest nodes (node_invocation and node_depends_on) for invocation `to`. */
export async function copyNodeRows(connection: DuckDBConnection, from: string, to: string): Promise<void> {
  await connection.run('INSERT INTO invocation_node_block SELECT $2::VARCHAR, block_id FROM invocation_node_block WHERE invocation_id = $1', [from, to]);
}

/**
 * Runs `edit` (UPDATE, DELETE or INSERT statements on the temp table `edited_node`, which holds
 * the invocation's node_block rows without block_id) and stores the result as the invocation's
 * one block, so that node_invocation shows the edited rows for that invocation only.
 */
export async function editNodeRows(connection: DuckDBConnection, invocationId: string, edit: string, params: readonly string[] = []): Promise<void> {
  const blockId = `edited-${++edits}`;
  await connection.run(
    'CREATE OR REPLACE TEMP TABLE edited_node AS SELECT n.* EXCLUDE (block_id) FROM invocation_node_block AS b JOIN node_block AS n USING (block_id) WHERE b.invocation_id = $1',
    [invocationId],
  );
  await connection.run(edit, [...params]);
  await connection.run('INSERT INTO node_block SELECT $1::VARCHAR, * FROM edited_node', [blockId]);
  await connection.run('DELETE FROM invocation_node_block WHERE invocation_id = $1', [invocationId]);
  await connection.run('INSERT INTO invocation_node_block VALUES ($1, $2)', [invocationId, blockId]);
}
