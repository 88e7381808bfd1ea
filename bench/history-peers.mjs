// The alternative to dbtattic that bench/history-scale.mjs measures beside it: DuckDB's
// read_json over the per-run copies of run_results.json (and the newest manifests), asking the
// question a view or command answers. Columns are declared (no sampling) and the query runs in
// one open in-memory database: no process start, so the comparison favours the peer.
import { DuckDBInstance } from '@duckdb/node-api';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

export const FAILED = "('error', 'fail', 'runtime error', 'partial success')";
const COMPLETED = "('success', 'pass', 'warn', 'fail')";
const sqlText = (text) => `'${text.replace(/'/g, "''")}'`;

function runResults(runsDir) {
  const glob = sqlText(path.join(runsDir, '*', 'run_results.json'));
  return `read_json(${glob}, columns = {
    metadata: 'STRUCT(invocation_id VARCHAR, generated_at TIMESTAMPTZ)', elapsed_time: 'DOUBLE',
    args: 'STRUCT(which VARCHAR, target VARCHAR)',
    results: 'STRUCT(unique_id VARCHAR, status VARCHAR, execution_time DOUBLE, message VARCHAR, failures BIGINT, thread_id VARCHAR)[]'})`;
}

function manifestNodes(file) {
  const struct =
    'STRUCT(unique_id VARCHAR, name VARCHAR, resource_type VARCHAR, checksum STRUCT(name VARCHAR, checksum VARCHAR), depends_on STRUCT(nodes VARCHAR[]))';
  return `(SELECT unnest(map_values(nodes)) AS node FROM read_json(${sqlText(file)}, columns = {nodes: 'MAP(VARCHAR, ${struct})'}, maximum_object_size = 2000000000))`;
}

/** Every result of every copy, beside its run. */
const results = (rr) => `(SELECT metadata.invocation_id AS invocation_id, metadata.generated_at AS ran_at, args.which AS command, r.*
  FROM (SELECT metadata, args, unnest(results) AS r FROM ${rr}))`;

/** What changed between two manifests and two run results: the question of `diff` and `inspect`. */
const runDiff = (rr, before, after, beforeId, afterId) => `
  WITH a AS (SELECT node.unique_id, node.checksum.checksum AS sum FROM ${manifestNodes(before)}),
       b AS (SELECT node.unique_id, node.checksum.checksum AS sum FROM ${manifestNodes(after)}),
       res AS (SELECT * FROM ${results(rr)} WHERE invocation_id IN (${sqlText(beforeId)}, ${sqlText(afterId)}))
  SELECT (SELECT count(*) FROM a FULL JOIN b USING (unique_id) WHERE a.sum IS DISTINCT FROM b.sum) AS nodes_changed,
         (SELECT count(*) FROM res WHERE invocation_id = ${sqlText(afterId)} AND status IN ${FAILED}) AS failures,
         (SELECT count(*) FROM res x JOIN res y USING (unique_id) WHERE x.invocation_id = ${sqlText(beforeId)} AND y.invocation_id = ${sqlText(afterId)} AND x.status <> y.status) AS status_changes`;

const runtime = (rr) => `
  WITH x AS (SELECT unique_id, execution_time, row_number() OVER (PARTITION BY unique_id ORDER BY ran_at DESC) AS recency
             FROM ${results(rr)} WHERE status IN ${COMPLETED} AND command IN ('build', 'run', 'test', 'seed', 'snapshot') AND execution_time IS NOT NULL)
  SELECT unique_id, count(*) AS runs, median(execution_time) AS median_s, quantile_cont(execution_time, 0.95) AS p95_s,
         max(execution_time) FILTER (WHERE recency = 1) AS last_s,
         count(*) FILTER (WHERE recency BETWEEN 2 AND 11) AS baseline_runs,
         median(execution_time) FILTER (WHERE recency BETWEEN 2 AND 11) AS baseline_median_s
  FROM x GROUP BY unique_id`;

const lastSuccess = (rr, commands) => `
  SELECT metadata.invocation_id FROM ${rr}
  WHERE args.which IN (${commands.map(sqlText).join(', ')}) AND len(results) > 0 AND len(list_filter(results, x -> x.status IN ${FAILED})) = 0
  ORDER BY metadata.generated_at DESC LIMIT 1`;

/**
 * The run-history questions, of run_results.json alone: every result beside its run (counted),
 * and `history`'s table of the newest runs. bench/export.mjs asks Spark the same of the dataset.
 */
export function runHistoryQuestions(runsDir) {
  const rr = runResults(runsDir);
  return {
    v_run_history: `SELECT count(*) AS n FROM ${results(rr)}`,
    history: `SELECT invocation_id, any_value(ran_at), any_value(command), count(*) FILTER (WHERE status IN ${FAILED}) AS failed, count(*) AS results
      FROM ${results(rr)} GROUP BY invocation_id ORDER BY 2 DESC LIMIT 20`,
  };
}

/**
 * The peer's SQL per question, by the name the bench gives the question. `newest` and
 * `previous` are the last two runs: { id, manifest }.
 */
export function peerQuestions(runsDir, newest, previous) {
  const rr = runResults(runsDir);
  const diff = runDiff(rr, previous.manifest, newest.manifest, previous.id, newest.id);
  const runHistory = runHistoryQuestions(runsDir);
  return {
    v_invocation_sequence: `SELECT count(*) AS n FROM (SELECT metadata.invocation_id, row_number() OVER (ORDER BY metadata.generated_at) FROM ${rr})`,
    v_run_history: runHistory.v_run_history,
    v_node_runtime: `SELECT count(*) AS n FROM (${runtime(rr)})`,
    v_runtime_regressions: `SELECT count(*) AS n FROM (${runtime(rr)}) WHERE baseline_runs >= 3 AND last_s > 1.5 * baseline_median_s AND last_s - baseline_median_s > 1.0`,
    v_test_history: `SELECT count(*) AS n FROM (
      SELECT unique_id, count(*) FILTER (WHERE status = 'pass') AS passes, count(*) FILTER (WHERE status = 'fail') AS fails,
             count(*) FILTER (WHERE status = 'error') AS errors, arg_max(status, ran_at) AS last_status, max(ran_at) FILTER (WHERE status IN ('fail', 'error')) AS last_failure
      FROM ${results(rr)} WHERE unique_id LIKE 'test.%' AND command IN ('build', 'test') GROUP BY unique_id)`,
    v_latest_edges: `SELECT count(*) AS n FROM ${manifestNodes(newest.manifest)}, unnest(node.depends_on.nodes) AS d(depends_on_id)`,
    history: runHistory.history,
    inspect: diff,
    diff,
    'state --last-success': lastSuccess(rr, ['build', 'run']),
    'state --last-success, none matching': lastSuccess(rr, ['seed']),
  };
}

/** Runs each question once (a question asked twice in the same words, once); returns { name: { ms, rows } }. */
export async function measurePeers(questions) {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run('SELECT 1');
    const measured = {};
    const bySql = new Map();
    for (const [name, sql] of Object.entries(questions)) {
      if (!bySql.has(sql)) {
        const started = performance.now();
        const rows = (await connection.runAndReadAll(sql)).getRowObjectsJson();
        bySql.set(sql, { ms: Math.round(performance.now() - started), rows });
      }
      measured[name] = bySql.get(sql);
    }
    return measured;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
