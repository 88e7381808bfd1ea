import type { DuckDBConnection } from '@duckdb/node-api';
import { plainResult } from '../db/plain-rows.js';
import { readFacts, type FactRow, type ReportScope } from './report-facts.js';
import { flakyOf, RAN, TEST_COUNTS } from '../derived/test-history.js';

/**
 * The report's detail: one run's timeline and lineage, each node's changes with their code,
 * test and source histories, regressions. Read for the runs and nodes the report keeps in full.
 */
async function rows(connection: DuckDBConnection, sql: string, params: (string | number)[] = []): Promise<FactRow[]> {
  return plainResult(await connection.runAndReadAll(sql, params)).rows;
}

/** One run's results with their timing and thread, for its Gantt chart. */
export function readRunTimeline(connection: DuckDBConnection, invocationId: string): Promise<FactRow[]> {
  return rows(
    connection,
    `
    SELECT unique_id, status, thread_id, execute_started_at, execute_completed_at
    FROM run_result WHERE invocation_id = $1 ORDER BY execute_started_at NULLS LAST, unique_id`,
    [invocationId],
  );
}

/** The lineage a run ran with: its own manifest's edges, else those of the newest manifest before it. */
export function readRunEdges(connection: DuckDBConnection, invocationId: string): Promise<FactRow[]> {
  return rows(
    connection,
    `
    WITH manifest AS (
      SELECT m.invocation_id FROM v_invocation_sequence AS m, v_invocation_sequence AS r
      WHERE r.invocation_id = $1 AND m.has_manifest AND m.seq <= r.seq ORDER BY m.seq DESC LIMIT 1
    )
    SELECT d.unique_id, d.depends_on_id FROM node_depends_on AS d JOIN manifest USING (invocation_id) WHERE d.kind = 'node'`,
    [invocationId],
  );
}

/**
 * The lineage of the project as the report shows it: the node edges (refs, sources, a test's
 * model) of the newest manifest in scope. Its rows are taken from node_block by a semi join on
 * its blocks (v_latest_edges says why).
 */
export function readNewestEdges(connection: DuckDBConnection, scope: ReportScope): Promise<FactRow[]> {
  return readFacts(
    connection,
    scope,
    `,
    newest AS (SELECT s.invocation_id FROM scope JOIN v_invocation_sequence AS s USING (invocation_id) WHERE s.has_manifest ORDER BY s.seq DESC LIMIT 1),
    newest_row AS MATERIALIZED (
      SELECT nb.unique_id, nb.node_version_id FROM node_block AS nb
      WHERE nb.block_id IN (SELECT block_id FROM invocation_node_block WHERE invocation_id IN (SELECT invocation_id FROM newest))
    )
    SELECT DISTINCT r.unique_id, e.depends_on_id
    FROM newest_row AS r
    JOIN node_version AS nv ON nv.node_version_id = r.node_version_id AND NOT nv.disabled
    JOIN node_version_edge AS e ON e.node_version_id = r.node_version_id
    ORDER BY r.unique_id, e.depends_on_id`,
  );
}

/**
 * Each change of a node that reached a manifest in scope (v_node_changes), pinned to its run and
 * git sha, with the raw code (node versions) and compiled code (each invocation's own) on both sides.
 */
export function readNodeChanges(connection: DuckDBConnection, scope: ReportScope): Promise<FactRow[]> {
  // The code of both sides only for changes: an added or removed node's whole text is no diff.
  const changed = "c.change_kind NOT IN ('added', 'removed')";
  return readFacts(
    connection,
    scope,
    `
    SELECT c.unique_id, c.change_kind, c.what_changed, c.changed_macros, c.from_invocation, c.to_invocation, c.changed_at, c.to_seq, i.git_sha,
           CASE WHEN ${changed} THEN fv.raw_code END AS from_raw, CASE WHEN ${changed} THEN tv.raw_code END AS to_raw,
           CASE WHEN ${changed} THEN fc.compiled_code END AS from_compiled, CASE WHEN ${changed} THEN tc.compiled_code END AS to_compiled
    FROM v_node_changes AS c
    JOIN scope ON scope.invocation_id = c.to_invocation
    JOIN invocation AS i ON i.invocation_id = c.to_invocation
    LEFT JOIN node_version AS fv ON fv.node_version_id = c.from_version
    LEFT JOIN node_version AS tv ON tv.node_version_id = c.to_version
    LEFT JOIN node AS fc ON fc.invocation_id = c.from_invocation AND fc.node_version_id = c.from_version
    LEFT JOIN node AS tc ON tc.invocation_id = c.to_invocation AND tc.node_version_id = c.to_version
    ORDER BY c.unique_id, c.to_seq`,
  );
}

/** v_test_history for the tests that ran in scope. */
export function readTestHistory(connection: DuckDBConnection, scope: ReportScope): Promise<FactRow[]> {
  // Counted over the scope's runs, as v_test_history counts all of history (test-history.ts):
  // `report --last 3` showed a failure of run 5 from the end.
  return readFacts(
    connection,
    scope,
    `,
    result AS (
      SELECT r.unique_id, r.status, sc.seq, r.status IN ${RAN} AS ran, st.definitions
      FROM run_result AS r
      JOIN scope AS sc USING (invocation_id)
      JOIN v_invocation_sequence AS s ON s.invocation_id = r.invocation_id AND s.builds
      LEFT JOIN test_run_state AS st ON st.invocation_id = r.invocation_id AND st.unique_id = r.unique_id
      WHERE split_part(r.unique_id, '.', 1) IN ('test', 'unit_test')
    ),
    counted AS (
      SELECT unique_id,${TEST_COUNTS},
             max_by({passed: status = 'pass', definitions: definitions}, seq, 10) FILTER (WHERE ran) AS recent
      FROM result GROUP BY unique_id
    )
    SELECT c.unique_id, t.name, c.runs, c.passes, c.warns, c.fails, c.errors, c.skips, c.last_status,
           coalesce(${flakyOf('c.recent')}, false) AS flaky, t.tested_node, t.column_name, t.deleted
    FROM counted AS c LEFT JOIN v_test_history AS t USING (unique_id)
    ORDER BY c.unique_id`,
  );
}

/** Every freshness check in scope (v_source_freshness_history), oldest first. */
export function readSourceChecks(connection: DuckDBConnection, scope: ReportScope): Promise<FactRow[]> {
  return readFacts(
    connection,
    scope,
    `
    SELECT f.unique_id, f.source_name, f.table_name, f.invocation_id, f.seq, f.invoked_at, f.status, f.age_s, f.max_loaded_at,
           f.warn_after_count, f.warn_after_period, f.error_after_count, f.error_after_period, f.status_changed
    FROM v_source_freshness_history AS f JOIN scope USING (invocation_id)
    ORDER BY f.unique_id, f.seq`,
  );
}

/** v_runtime_regressions, worst first. */
export function readRuntimeRegressions(connection: DuckDBConnection): Promise<FactRow[]> {
  return rows(
    connection,
    'SELECT unique_id, name, last_invocation_id, last_s, baseline_median_s, trend_ratio, added_s FROM v_runtime_regressions ORDER BY added_s DESC',
  );
}

/** The failed results of one run, with dbt's messages. */
export function readRunFailures(connection: DuckDBConnection, invocationId: string): Promise<FactRow[]> {
  return rows(
    connection,
    `
    SELECT unique_id, status, message FROM run_result
    WHERE invocation_id = $1 AND status IN ('error', 'fail', 'runtime error', 'partial success') ORDER BY unique_id`,
    [invocationId],
  );
}
