import type { DuckDBConnection } from '@duckdb/node-api';
import { duckdb } from '../duckdb.js';
import { invocationNodes } from './invocation-nodes.js';

/**
 * run_history (schema/001-tables.sql) holds v_run_history's rows: each run result with the
 * node as defined when it ran, the invocation's own manifest or else the latest earlier one
 * (v_invocation_sequence order). Matched at every read, that was an ASOF join over every node of
 * every manifest, and it grew with the history.
 *
 * A result its own manifest defines is matched for good: no manifest filed later comes closer
 * than its own. The others (its invocation has no manifest, or the node is not enabled in it)
 * may be matched to another manifest when one is filed late or forgotten, so they are matched
 * again at every refresh; they are few (a capture without a manifest, a node dropped from the
 * project). So `rebuild` equals the incremental store.
 */

/** A run result's own columns, as run_result_pending (schema/001-tables.sql) holds them. */
const RESULT = `invocation_id, unique_id, status, message, failures, execution_time, thread_id, compile_started_at, compile_completed_at,
  execute_started_at, execute_completed_at, rows_affected, adapter_response, batch_results`;

/**
 * The results to match, with their columns: those ingest has just read (pending) of the
 * invocations named, those of the invocations named that were matched before (ingest deletes an
 * invocation's matched rows when it reads it again), and every one not defined by its own manifest.
 * One filter per select: run_history filtered by `a OR b` decoded every column of every row
 * (30-110 ms at 2 million rows), by each alone only the filter's column (3 ms).
 */
const SCOPE = `
CREATE OR REPLACE TEMP TABLE history_scope AS
SELECT ${RESULT} FROM run_result_pending WHERE invocation_id IN (SELECT unnest($1::VARCHAR[]))
UNION ALL
SELECT ${RESULT} FROM run_history WHERE invocation_id IN (SELECT unnest($1::VARCHAR[]))
UNION ALL
SELECT ${RESULT} FROM run_history WHERE NOT defined_here AND invocation_id NOT IN (SELECT unnest($1::VARCHAR[]))`;

const DROP_SCOPE = [
  `DELETE FROM run_history WHERE invocation_id IN (SELECT unnest($1::VARCHAR[]))`,
  `DELETE FROM run_result_pending WHERE invocation_id IN (SELECT unnest($1::VARCHAR[]))`,
];
const DROP_LOOSE = 'DELETE FROM run_history WHERE NOT defined_here';

/**
 * The results in scope (those of invocations the store still has: a forgotten invocation's are
 * gone), each with its node in its own manifest when that has it enabled: a join on the
 * invocations in scope, no history read.
 */
const SCOPED = `
CREATE OR REPLACE TEMP TABLE history_result AS
WITH ${invocationNodes('scope_node', '(SELECT DISTINCT invocation_id FROM history_scope)')},
own AS (
  SELECT ni.invocation_id, ni.unique_id, ni.node_version_id, ni.fingerprint
  FROM scope_node AS ni
  JOIN node_version AS nv ON nv.node_version_id = ni.node_version_id AND NOT nv.disabled
)
SELECT r.*, s.seq, o.node_version_id AS own_version, o.fingerprint AS own_fingerprint
FROM history_scope AS r
JOIN v_invocation_sequence AS s ON s.invocation_id = r.invocation_id
LEFT JOIN own AS o ON o.invocation_id = r.invocation_id AND o.unique_id = r.unique_id`;

const RESULT_COLUMNS = `r.status, r.message, r.failures, r.execution_time, r.rows_affected, r.execute_started_at, r.execute_completed_at, r.thread_id,
  r.compile_started_at, r.compile_completed_at, r.adapter_response, r.batch_results`;

/**
 * The temp table a refresh leaves with the rows it matched: every row run_history holds for the
 * invocations named, and the rows not defined here. Test history reads the new results there,
 * until the refresh is done (dropMatchedHistory): in run_history, kept in node order
 * (compact.ts), every read of one invocation's rows scanned the whole table.
 */
export const MATCHED_HISTORY = 'history_matched';

const OWN = `
CREATE OR REPLACE TEMP TABLE ${MATCHED_HISTORY} AS
SELECT r.invocation_id, r.unique_id, true AS defined_here, nv.name, nv.resource_type, nv.materialization, r.own_version AS node_version_id, r.own_fingerprint AS fingerprint, ${RESULT_COLUMNS}
FROM history_result AS r
JOIN node_version AS nv ON nv.node_version_id = r.own_version`;

/** The rest: the latest earlier manifest that has the node enabled, if any (only those nodes' entries are read). */
const EARLIER = `
INSERT INTO ${MATCHED_HISTORY} BY NAME
WITH rest AS (SELECT * FROM history_result WHERE own_version IS NULL),
presence AS (
  SELECT ni.unique_id, s.seq, ni.node_version_id, ni.fingerprint, nv.name, nv.resource_type, nv.materialization
  FROM node_invocation AS ni
  JOIN node_version AS nv ON nv.node_version_id = ni.node_version_id AND NOT nv.disabled
  JOIN v_invocation_sequence AS s ON s.invocation_id = ni.invocation_id
  WHERE ni.unique_id IN (SELECT unique_id FROM rest)
)
SELECT r.invocation_id, r.unique_id, false AS defined_here, p.name, p.resource_type, p.materialization, p.node_version_id, p.fingerprint, ${RESULT_COLUMNS}
FROM rest AS r
ASOF LEFT JOIN presence AS p ON p.unique_id = r.unique_id AND r.seq >= p.seq`;

/**
 * manifest_invocation for `ids` (ingested, re-ingested or forgotten): whether each has node
 * rows now. Before anything that reads v_invocation_sequence.has_manifest is derived again.
 */
export async function refreshManifestInvocations(connection: DuckDBConnection, ids: readonly string[]): Promise<void> {
  const [list, types] = [[duckdb.listValue([...ids])], [duckdb.LIST(duckdb.VARCHAR)]];
  await connection.run('DELETE FROM manifest_invocation WHERE invocation_id IN (SELECT unnest($1::VARCHAR[]))', list, types);
  await connection.run(
    'INSERT INTO manifest_invocation SELECT DISTINCT invocation_id FROM invocation_node_block WHERE invocation_id IN (SELECT unnest($1::VARCHAR[]))',
    list,
    types,
  );
}

/**
 * Matches the results of `ids` (ingested, re-ingested or forgotten) and again those not defined
 * by their own manifest, moving what ingest read into run_history; drops the rows of results
 * the store no longer holds among them. Leaves MATCHED_HISTORY.
 */
export async function refreshRunHistory(connection: DuckDBConnection, ids: readonly string[]): Promise<void> {
  // Typed: an empty list has no item type to infer.
  const [list, types] = [[duckdb.listValue([...ids])], [duckdb.LIST(duckdb.VARCHAR)]];
  await connection.run(SCOPE, list, types);
  for (const sql of DROP_SCOPE) await connection.run(sql, list, types);
  await connection.run(DROP_LOOSE);
  await connection.run(SCOPED);
  await connection.run(OWN);
  // Most refreshes have nothing left for the history-wide match.
  const rest = (await connection.runAndReadAll('SELECT count(*) FROM history_result WHERE own_version IS NULL')).getRows()[0]?.[0];
  if (Number(rest ?? 0) > 0) await connection.run(EARLIER);
  await connection.run(`INSERT INTO run_history BY NAME SELECT * FROM ${MATCHED_HISTORY}`);
  for (const table of ['history_scope', 'history_result']) await connection.run(`DROP TABLE IF EXISTS ${table}`);
}

export async function dropMatchedHistory(connection: DuckDBConnection): Promise<void> {
  await connection.run(`DROP TABLE IF EXISTS ${MATCHED_HISTORY}`);
}
