/**
 * The questions the extension asks the store, as SQL over the views README documents
 * (v_node_runtime, v_run_history, v_node_changes, v_test_history, v_runtime_regressions).
 * The CLI's `query` runs them read-only; it takes no bind parameters, so values are quoted here.
 */
export function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** Executions (not compile/docs) that counted as a build of the node, newest first. */
const BUILT_RUNS = `FROM v_run_history WHERE builds AND status IS NOT NULL`;

/**
 * Per model, seed and snapshot of the latest manifest: where its file is, its last status
 * (of a build, not a compile), its runtimes, and how many builds since its last semantic change.
 */
export const NODE_FILE_STATS = `
WITH latest_node AS (
  SELECT n.unique_id, n.name, n.resource_type, n.path
  FROM node AS n JOIN v_invocation_sequence AS s USING (invocation_id)
  WHERE n.resource_type IN ('model', 'seed', 'snapshot') AND NOT n.disabled
  QUALIFY row_number() OVER (PARTITION BY n.unique_id ORDER BY s.seq DESC) = 1
),
last_build AS (
  SELECT unique_id, status, seq ${BUILT_RUNS}
  QUALIFY row_number() OVER (PARTITION BY unique_id ORDER BY seq DESC) = 1
),
last_semantic_change AS (
  SELECT unique_id, max(to_seq) AS seq FROM v_node_changes
  WHERE change_kind IN ('semantic', 'added') GROUP BY unique_id
)
SELECT
  l.unique_id, l.name, l.resource_type, l.path,
  b.status AS last_status,
  r.last_s, r.median_s, r.trend_ratio, r.runs,
  (SELECT count(*) FROM v_run_history AS h
   WHERE h.builds AND h.status IS NOT NULL AND h.unique_id = l.unique_id AND h.seq >= coalesce(c.seq, 0)) AS runs_since_change
FROM latest_node AS l
LEFT JOIN last_build AS b USING (unique_id)
LEFT JOIN v_node_runtime AS r USING (unique_id)
LEFT JOIN last_semantic_change AS c USING (unique_id)
ORDER BY l.unique_id`;

/** The newest build in which the node succeeded, with its code then and what it compiled to. */
export function lastSuccessSql(uniqueId: string): string {
  return `
SELECT h.invocation_id, h.invoked_at, n.raw_code, n.compiled_code
FROM v_run_history AS h
LEFT JOIN node AS n ON n.invocation_id = h.invocation_id AND n.unique_id = h.unique_id
WHERE h.unique_id = ${sqlString(uniqueId)} AND h.builds AND h.status IN ('success', 'pass')
ORDER BY h.seq DESC LIMIT 1`;
}

/** The newest SQL the node compiled to in any invocation (a compile counts). */
export function latestCompiledSql(uniqueId: string): string {
  return `
SELECT n.invocation_id, n.compiled_code
FROM node AS n JOIN v_invocation_sequence AS s USING (invocation_id)
WHERE n.unique_id = ${sqlString(uniqueId)} AND n.compiled_code IS NOT NULL
ORDER BY s.seq DESC LIMIT 1`;
}

export const INSIGHT_SQL = {
  regressions: `SELECT unique_id, name, last_s, baseline_median_s, trend_ratio FROM v_runtime_regressions ORDER BY added_s DESC LIMIT 50`,
  flaky: `SELECT unique_id, name, passes, fails + errors AS failures, last_status FROM v_test_history WHERE flaky ORDER BY name LIMIT 50`,
  // A test whose newest run failed after a run that passed.
  newlyFailing: `
WITH t AS (
  SELECT unique_id, name, status, row_number() OVER (PARTITION BY unique_id ORDER BY seq DESC) AS recency
  ${BUILT_RUNS} AND resource_type = 'test' AND status <> 'skipped'
)
SELECT now.unique_id, now.name, now.status AS last_status
FROM t AS now JOIN t AS before ON before.unique_id = now.unique_id AND before.recency = 2
WHERE now.recency = 1 AND now.status IN ('fail', 'error') AND before.status IN ('pass', 'warn')
ORDER BY now.name LIMIT 50`,
  changed: `
SELECT unique_id, name, change_kind, what_changed, changed_at FROM v_node_changes
WHERE resource_type = 'model' AND change_kind NOT IN ('removed')
QUALIFY row_number() OVER (PARTITION BY unique_id ORDER BY to_seq DESC) = 1
ORDER BY changed_at DESC LIMIT 50`,
} as const;

/** Starter queries offered in the Query panel. */
export const STARTER_QUERIES: { label: string; sql: string }[] = [
  {
    label: 'Recent invocations',
    sql: 'SELECT invocation_id, invoked_at, command, target, branch, git_sha FROM v_invocation_sequence ORDER BY seq DESC LIMIT 20',
  },
  {
    label: 'Slowest models (median)',
    sql: "SELECT name, runs, round(median_s, 2) AS median_s, round(p95_s, 2) AS p95_s, round(last_s, 2) AS last_s FROM v_node_runtime WHERE resource_type = 'model' ORDER BY median_s DESC LIMIT 20",
  },
  {
    label: 'Test failures',
    sql: 'SELECT name, runs, fails, errors, last_status, last_failure_at FROM v_test_history WHERE fails + errors > 0 ORDER BY last_failure_at DESC',
  },
  { label: 'Changes by kind', sql: 'SELECT change_kind, count(*) AS changes FROM v_node_changes GROUP BY change_kind ORDER BY changes DESC' },
  { label: 'Runtime regressions', sql: 'SELECT * FROM v_runtime_regressions' },
];
