import type { DuckDBConnection } from '@duckdb/node-api';
import { duckdb } from '../duckdb.js';

/**
 * node_runtime (schema/001-tables.sql) holds v_node_runtime's rows, derived when invocations
 * are ingested or forgotten (history-aggregates.ts says when a run is merged and when the table
 * is derived again). Aggregated at each read from every run result, the view grew with history:
 * 500 ms at 10,000 nodes x 200 runs, and v_runtime_regressions on top of it 740 ms.
 *
 * The median and p95 cover every time of a node, yet each reads only the one or two times at
 * its rank: a window of the sorted times around each rank is kept (schema/002-macros.sql,
 * window_*), and a merge sorts the new times into it. Keeping every time sorted instead cost a
 * rewrite of the whole history at each capture (420 ms at 200 runs, growing by the run).
 */

/**
 * An execution whose time counts, as v_node_runtime counts it: it completed and says how long it
 * took. A skipped node's 0 s or an error's time cut short are no runtime (`alias`: run results).
 */
export const completedExecution = (alias: string): string => `${alias}.status IN ('success', 'pass', 'warn', 'fail') AND ${alias}.execution_time IS NOT NULL`;

/** Completed, read from run results named r, in a command that builds (joined where used). */
const COMPLETED = completedExecution('r');

/**
 * Times kept on either side of a rank. A new time moves the median's rank half a place and the
 * p95's almost one, and a window moves with every time below it: one is filled again from
 * run_history when the ranks leave it, after about (16 / 0.5)² captures of times spread evenly
 * around the median, and 32 of a node that keeps getting slower.
 */
const WINDOW = 16;

const RUNS = '(SELECT unnest($1::VARCHAR[]))';

/**
 * Per node, what the completed executions of the runs named say: their times sorted, the last
 * 11 newest first, and the last run. Narrowed to the runs first (materialized), as test
 * history's scope is.
 */
const scopedSummary = (history: string): string => `
CREATE OR REPLACE TEMP TABLE runtime_scope_summary AS
WITH execution AS MATERIALIZED (
  SELECT r.unique_id, r.invocation_id, r.execution_time,
         CASE WHEN r.defined_here THEN r.name END AS name,
         CASE WHEN r.defined_here THEN r.resource_type END AS resource_type
  FROM ${history} AS r
  WHERE r.invocation_id IN ${RUNS} AND ${COMPLETED}
)
SELECT
  e.unique_id,
  list(e.execution_time) AS times,
  max_by(e.execution_time, s.seq, 11) AS recent_s,
  arg_max({invocation_id: e.invocation_id, invoked_at: s.invoked_at, name: e.name, resource_type: e.resource_type}, s.seq) AS last
FROM execution AS e
JOIN v_invocation_sequence AS s ON s.invocation_id = e.invocation_id AND s.builds
GROUP BY e.unique_id`;

/**
 * The scoped summary on top of the rows held, all earlier in history: runs summed, the new
 * times sorted into both windows, the scope's recent times before the held ones, its last run
 * the last. list_concat takes NULL for an empty list.
 */
const MERGE = `
CREATE OR REPLACE TEMP TABLE runtime_merged AS
SELECT
  p.unique_id,
  coalesce(h.runs, 0) + len(p.times) AS runs,
  window_add(h.median_window, h.runs, p.times) AS median_window,
  window_add(h.p95_window, h.runs, p.times) AS p95_window,
  list_concat(p.recent_s, h.recent_s)[1:11] AS recent_s,
  p.last
FROM runtime_scope_summary AS p
LEFT JOIN node_runtime AS h ON h.unique_id = p.unique_id`;

const LEFT_WINDOW = `NOT window_holds(median_window, runs, 0.5) OR NOT window_holds(p95_window, runs, 0.95)`;

/**
 * Windows the ranks left, filled again with every time of their node: those of the runs counted
 * before and of the runs being added (all in run_history by now), not of runs still to come
 * when the table is derived again stretch by stretch.
 */
const refill = (counted: string): string => `
UPDATE runtime_merged AS m SET median_window = f.all_times, p95_window = f.all_times
FROM (
  SELECT r.unique_id, {'skip': 0::BIGINT, 'times': list_sort(list(r.execution_time))} AS all_times
  FROM run_history AS r
  JOIN v_invocation_sequence AS s ON s.invocation_id = r.invocation_id AND s.builds
  WHERE r.unique_id IN (SELECT unique_id FROM runtime_merged WHERE ${LEFT_WINDOW})
    AND (r.invocation_id IN (SELECT invocation_id FROM ${counted}) OR r.invocation_id IN ${RUNS})
    AND ${COMPLETED}
  GROUP BY r.unique_id
) AS f
WHERE f.unique_id = m.unique_id`;

const STORE = `
INSERT INTO node_runtime BY NAME
SELECT
  unique_id,
  runs,
  window_quantile(median_window, runs, 0.5) AS median_s,
  window_quantile(p95_window, runs, 0.95) AS p95_s,
  window_trim(median_window, runs, 0.5, ${WINDOW}) AS median_window,
  window_trim(p95_window, runs, 0.95, ${WINDOW}) AS p95_window,
  recent_s,
  last.invocation_id AS last_invocation_id,
  last.invoked_at AS last_at,
  last.name AS name,
  last.resource_type AS resource_type
FROM runtime_merged`;

/**
 * Adds the completed executions of `runs`, read from `history`, all later in history than every
 * run in `counted` (the table of runs added before).
 */
export async function addRuntimeRuns(connection: DuckDBConnection, history: string, runs: readonly string[], counted: string): Promise<void> {
  const [list, types] = [[duckdb.listValue([...runs])], [duckdb.LIST(duckdb.VARCHAR)]];
  await connection.run(scopedSummary(history), list, types);
  await connection.run(MERGE);
  const left = Number((await connection.runAndReadAll(`SELECT count(*) FROM runtime_merged WHERE ${LEFT_WINDOW}`)).getRows()[0]?.[0] ?? 0);
  if (left > 0) await connection.run(refill(counted), list, types);
  await connection.run('DELETE FROM node_runtime WHERE unique_id IN (SELECT unique_id FROM runtime_merged)');
  await connection.run(STORE);
  for (const table of ['runtime_scope_summary', 'runtime_merged']) await connection.run(`DROP TABLE IF EXISTS ${table}`);
}
