import type { DuckDBConnection } from '@duckdb/node-api';
import { duckdb } from '../duckdb.js';
import { invocationNodes } from './invocation-nodes.js';
import { MATCHED_HISTORY } from './run-history.js';
import { refreshTestDefinitions } from './test-definitions.js';

/**
 * test_run_state and test_history (schema/001-tables.sql) hold v_test_history's rows, derived
 * when invocations are ingested or forgotten. At each read, the view looked up the parents of
 * every test in the nodes of its recent manifests, and aggregated every test result of history.
 * A run's state (the definitions it ran under) follows from its own manifest alone; the counts
 * and the last 10 runs of a test from all its results (history-aggregates.ts says when a run is
 * added and when they are derived again).
 */

/** The statuses of a test that ran (v_test_history: skipped and others did not). */
export const RAN = `('pass', 'warn', 'fail', 'error', 'runtime error')`;

/**
 * v_test_history's counts over rows with status, seq and ran: one rule for the table derived
 * here and for a report's scope (report-details.ts).
 */
export const TEST_COUNTS = `
  count(*) FILTER (WHERE ran) AS runs,
  count(*) FILTER (WHERE status = 'pass') AS passes,
  count(*) FILTER (WHERE status = 'warn') AS warns,
  count(*) FILTER (WHERE status = 'fail') AS fails,
  count(*) FILTER (WHERE status IN ('error', 'runtime error')) AS errors,
  count(*) FILTER (WHERE status = 'skipped') AS skips,
  max_by(status, seq) FILTER (WHERE ran) AS last_status`;

/**
 * flaky: two of the `recent` runs (structs of passed and definitions) with the same state, one
 * passed and one not. list_unique counts distinct values but NULLs (runs whose manifest did not
 * define the test); definitions are hex digests, so a suffix cannot make two of them one.
 */
export const flakyOf = (recent: string): string =>
  `list_unique(list_transform(${recent}, r -> r.definitions || r.passed::VARCHAR)) > list_unique(list_transform(${recent}, r -> r.definitions))`;

const IDS = `(SELECT unnest($1::VARCHAR[]))`;

/** Runs whose states one statement derives. */
const STATE_BATCH = 10;

/** The state of each test result of the invocations named that its own manifest defines. */
const RUN_STATE = `
INSERT INTO test_run_state BY NAME
WITH own AS (
  SELECT invocation_id, unique_id, node_version_id, coalesce(fingerprint, node_version_id) AS own_state
  FROM ${MATCHED_HISTORY}
  WHERE invocation_id IN ${IDS} AND defined_here AND resource_type IN ('test', 'unit_test') AND status IN ${RAN}
),
edge AS MATERIALIZED (
  SELECT o.invocation_id, o.unique_id, e.depends_on_id
  FROM own AS o
  JOIN node_version_edge AS e ON e.node_version_id = o.node_version_id
),
-- Only the parents' entries of those manifests (invocation-nodes.ts).
${invocationNodes('named_node', IDS)},
entry AS MATERIALIZED (
  SELECT n.invocation_id, n.unique_id, coalesce(n.fingerprint, n.node_version_id) AS state
  FROM named_node AS n
  JOIN node_version AS nv ON nv.node_version_id = n.node_version_id AND NOT nv.disabled
  WHERE n.unique_id IN (SELECT depends_on_id FROM edge)
),
parents AS (
  -- In depends_on_id order, a parent no enabled entry has as '?'.
  SELECT e.invocation_id, e.unique_id,
         array_to_string([p.state FOR p IN list_sort(list({id: e.depends_on_id, state: e.depends_on_id || '=' || coalesce(n.state, '?')}))], ',') AS parents
  FROM edge AS e
  LEFT JOIN entry AS n ON n.invocation_id = e.invocation_id AND n.unique_id = e.depends_on_id
  GROUP BY e.invocation_id, e.unique_id
)
SELECT o.invocation_id, o.unique_id, md5(o.own_state || '|' || coalesce(p.parents, '')) AS definitions
FROM own AS o
LEFT JOIN parents AS p ON p.invocation_id = o.invocation_id AND p.unique_id = o.unique_id`;

/**
 * The test results of the runs named, of commands that build, with their states, read from
 * `history` (run_history, or MATCHED_HISTORY when it holds them all). Each table is narrowed to
 * the scope first (materialized): left to the planner, the filter on the scope came after
 * test_run_state was joined whole, a cost that grew with history.
 */
const scopedResults = (history: string): string => `
CREATE OR REPLACE TEMP TABLE test_scope_result AS
WITH result AS MATERIALIZED (
  SELECT unique_id, invocation_id, name, status FROM ${history}
  WHERE invocation_id IN ${IDS} AND coalesce(resource_type, split_part(unique_id, '.', 1)) IN ('test', 'unit_test')
),
state AS MATERIALIZED (
  SELECT * FROM test_run_state WHERE invocation_id IN ${IDS}
)
SELECT r.unique_id, r.invocation_id, r.name, r.status, s.seq, s.invoked_at, r.status IN ${RAN} AS ran, st.definitions
FROM result AS r
JOIN v_invocation_sequence AS s ON s.invocation_id = r.invocation_id AND s.builds
LEFT JOIN state AS st ON st.invocation_id = r.invocation_id AND st.unique_id = r.unique_id`;

/**
 * Per test, what the scoped results say: the aggregates of v_test_history, and its last 10 runs
 * (max_by lists them from the latest). arg_max and max_by skip NULL values, so "the latest
 * non-NULL" of two stretches of history is the later stretch's, else the earlier's: what MERGE
 * relies on.
 */
const SCOPED_SUMMARY = `
CREATE OR REPLACE TEMP TABLE test_scope_summary AS
SELECT
  unique_id,
  arg_max(name, seq) AS name,${TEST_COUNTS},
  max_by(invoked_at, seq) FILTER (WHERE ran) AS last_run_at,
  arg_max(invoked_at, seq) FILTER (WHERE status IN ('fail', 'error', 'runtime error')) AS last_failure_at,
  arg_max(invocation_id, seq) FILTER (WHERE status IN ('fail', 'error', 'runtime error')) AS last_failure_invocation_id,
  max_by({invocation_id: invocation_id, passed: status = 'pass', definitions: definitions}, seq, 10) FILTER (WHERE ran) AS recent
FROM test_scope_result
GROUP BY unique_id`;

/**
 * The scoped summary on top of the rows held (all of them earlier in history): counts summed,
 * the latest values the scope's when it has them, its runs before the held ones. flaky: two of
 * the last 10 runs with the same state, one passed and one not.
 */
const MERGE = `
CREATE OR REPLACE TEMP TABLE test_merged AS
WITH merged AS (
  SELECT
    p.unique_id,
    coalesce(p.name, h.name) AS name,
    p.runs + coalesce(h.runs, 0) AS runs,
    p.passes + coalesce(h.passes, 0) AS passes,
    p.warns + coalesce(h.warns, 0) AS warns,
    p.fails + coalesce(h.fails, 0) AS fails,
    p.errors + coalesce(h.errors, 0) AS errors,
    p.skips + coalesce(h.skips, 0) AS skips,
    coalesce(p.last_status, h.last_status) AS last_status,
    coalesce(p.last_run_at, h.last_run_at) AS last_run_at,
    coalesce(p.last_failure_at, h.last_failure_at) AS last_failure_at,
    coalesce(p.last_failure_invocation_id, h.last_failure_invocation_id) AS last_failure_invocation_id,
    -- list_concat takes NULL for an empty list
    list_concat(p.recent, h.recent)[1:10] AS recent
  FROM test_scope_summary AS p
  LEFT JOIN test_history AS h ON h.unique_id = p.unique_id
)
SELECT *, ${flakyOf('recent')} AS flaky
FROM merged`;

/** Derives the states of the test results of `ids` (ingested, re-ingested or forgotten), and the tests' definitions. */
export async function refreshTestRunStates(connection: DuckDBConnection, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  // Typed: an empty list has no item type to infer.
  const types = [duckdb.LIST(duckdb.VARCHAR)];
  await connection.run(`DELETE FROM test_run_state WHERE invocation_id IN ${IDS}`, [duckdb.listValue([...ids])], types);
  // A few runs at a time: a rebuild derives every run's states, and the parents' entries of
  // all of them at once (10,000 nodes x 210 runs) outgrew the writer's memory limit.
  for (let i = 0; i < ids.length; i += STATE_BATCH) await connection.run(RUN_STATE, [duckdb.listValue(ids.slice(i, i + STATE_BATCH))], types);
  await refreshTestDefinitions(connection, ids);
}

/** Adds the test results of `runs` from `history`, all later in history than every run counted. */
export async function addTestRuns(connection: DuckDBConnection, history: string, runs: readonly string[]): Promise<void> {
  await connection.run(scopedResults(history), [duckdb.listValue([...runs])], [duckdb.LIST(duckdb.VARCHAR)]);
  for (const sql of [SCOPED_SUMMARY, MERGE]) await connection.run(sql);
  await connection.run('DELETE FROM test_history WHERE unique_id IN (SELECT unique_id FROM test_merged)');
  await connection.run('INSERT INTO test_history BY NAME SELECT * FROM test_merged');
  for (const table of ['test_scope_result', 'test_scope_summary', 'test_merged']) await connection.run(`DROP TABLE IF EXISTS ${table}`);
}
