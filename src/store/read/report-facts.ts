import type { DuckDBConnection } from '@duckdb/node-api';
import { completedExecution } from '../derived/node-runtime.js';
import { plainResult } from '../db/plain-rows.js';

/**
 * What `dbtattic report` shows, read from the store's views in a few set-wide queries (never a
 * query per node: a report covers 10,000 nodes). Every reader is limited to the report's scope:
 * the invocations chosen by target, branch, time and count, as v_invocation_sequence orders them.
 */
export type FactRow = Record<string, unknown>;

export interface ReportScope {
  target?: string;
  branch?: string;
  /** ISO instant: invocations at or after it. */
  since?: string;
  /** The newest N invocations (after the other filters). */
  last?: number;
}

/** A CTE `scope(invocation_id, seq)` and its parameters. */
export function scopeSql(scope: ReportScope): { cte: string; params: (string | number)[] } {
  const params: (string | number)[] = [];
  const where: string[] = ['true'];
  const add = (clause: string, value: string | number): void => {
    params.push(value);
    where.push(clause.replace('?', `$${params.length}`));
  };
  if (scope.target !== undefined) add('s.target = ?', scope.target);
  if (scope.branch !== undefined) add('s.branch = ?', scope.branch);
  if (scope.since !== undefined) add('s.invoked_at >= ?::TIMESTAMPTZ', scope.since);
  let limit = '';
  if (scope.last !== undefined) {
    params.push(scope.last);
    limit = `QUALIFY row_number() OVER (ORDER BY s.seq DESC) <= $${params.length}`;
  }
  return { cte: `scope AS (SELECT s.invocation_id, s.seq FROM v_invocation_sequence AS s WHERE ${where.join(' AND ')} ${limit})`, params };
}

export async function readFacts(connection: DuckDBConnection, scope: ReportScope, select: string): Promise<FactRow[]> {
  const { cte, params } = scopeSql(scope);
  return plainResult(await connection.runAndReadAll(`WITH ${cte} ${select}`, params)).rows;
}

const FAILED = "('error', 'fail', 'runtime error', 'partial success')";

/** Every invocation in scope, oldest first, with its outcome judged as `history` judges it. */
export function readReportRuns(connection: DuckDBConnection, scope: ReportScope): Promise<FactRow[]> {
  // failed_results: run results only (a freshness check's error is the Sources page's).
  return readFacts(
    connection,
    scope,
    `
    SELECT i.invocation_id, s.seq, s.invoked_at, s.project_name, i.completed_at, i.command, i.target, i.branch, i.git_sha, i.git_branch,
           i.elapsed_s, i.status_counts, coalesce(i.result_count, 0) AS result_count, i.run_exit_code, s.builds, s.has_manifest,
           (SELECT count(*) FROM run_result AS r WHERE r.invocation_id = i.invocation_id AND r.status IN ${FAILED}) AS failed_results,
           CASE WHEN coalesce(i.result_count, 0) = 0 THEN 'none'
                WHEN list_has_any(json_keys(i.status_counts), ['error', 'fail', 'runtime error', 'partial success']) THEN 'failed'
                ELSE 'ok' END AS outcome
    FROM scope JOIN v_invocation_sequence AS s USING (invocation_id) JOIN invocation AS i USING (invocation_id)
    ORDER BY s.seq`,
  );
}

/** Per node, the runtime figures v_node_runtime defines (median and p95 of completed executions), over the scope. */
export function readNodeRuntimes(connection: DuckDBConnection, scope: ReportScope): Promise<FactRow[]> {
  return readFacts(
    connection,
    scope,
    `,
    execution AS (
      SELECT r.unique_id, sc.seq, r.execution_time
      FROM run_result AS r JOIN scope AS sc USING (invocation_id) JOIN v_invocation_sequence AS s USING (invocation_id)
      WHERE s.builds AND ${completedExecution('r')}
    )
    SELECT unique_id, count(*) AS runs, median(execution_time) AS median_s, quantile_cont(execution_time, 0.95) AS p95_s,
           arg_max(execution_time, seq) AS last_s
    FROM execution GROUP BY unique_id`,
  );
}

/** One execution's result, as the report's series need it. */
export interface ResultPoint {
  unique_id: string;
  seq: number;
  status: string | null;
  ms: number | null;
  rows_affected: number | null;
}

/**
 * Every result of an execution in scope, streamed in chunks: 2 million results never sit in
 * memory at once, neither in DuckDB (no aggregation) nor here.
 */
export async function* streamResults(connection: DuckDBConnection, scope: ReportScope): AsyncGenerator<ResultPoint[]> {
  const { cte, params } = scopeSql(scope);
  const result = await connection.stream(
    `WITH ${cte}
    SELECT r.unique_id, sc.seq::INTEGER AS seq, r.status, round(r.execution_time * 1000)::DOUBLE AS ms, r.rows_affected::DOUBLE AS rows_affected
    FROM run_result AS r JOIN scope AS sc USING (invocation_id) JOIN v_invocation_sequence AS s USING (invocation_id)
    WHERE s.builds`,
    params,
  );
  for await (const rows of result.yieldRowsJs()) {
    yield rows.map(([unique_id, seq, status, ms, rows_affected]) => ({
      unique_id: String(unique_id),
      seq: Number(seq),
      status: status === null ? null : String(status),
      ms: typeof ms === 'number' ? ms : null,
      rows_affected: typeof rows_affected === 'number' ? rows_affected : null,
    }));
  }
}

/** Every node any manifest in scope held, as its newest manifest there has it; `current`: the newest manifest in scope holds it. */
export function readReportNodes(connection: DuckDBConnection, scope: ReportScope): Promise<FactRow[]> {
  return readFacts(
    connection,
    scope,
    `,
    newest AS (SELECT s.invocation_id FROM scope JOIN v_invocation_sequence AS s USING (invocation_id) WHERE s.has_manifest ORDER BY s.seq DESC LIMIT 1)
    SELECT n.unique_id, arg_max(n.name, sc.seq) AS name, arg_max(n.resource_type, sc.seq) AS resource_type,
           arg_max(n.path, sc.seq) AS path, arg_max(n.materialization, sc.seq) AS materialization,
           bool_or(n.invocation_id IN (SELECT invocation_id FROM newest)) AS current
    FROM node AS n JOIN scope AS sc USING (invocation_id)
    WHERE NOT n.disabled
    GROUP BY n.unique_id`,
  );
}

/** Failed and skipped results of the given runs, with dbt's messages. */
export function readRunProblems(connection: DuckDBConnection, scope: ReportScope): Promise<FactRow[]> {
  return readFacts(
    connection,
    scope,
    `
    SELECT r.invocation_id, r.unique_id, r.status, r.message, r.failures
    FROM run_result AS r JOIN scope USING (invocation_id)
    WHERE r.status IN ${FAILED} OR r.status = 'skipped' OR (r.status = 'warn')
    ORDER BY r.invocation_id, r.unique_id`,
  );
}

/**
 * The report's views window over every result of the history (2 million at 10,000 nodes × 200
 * runs); left at DuckDB's default (80% of memory) they took over 5 GB. Bounded, DuckDB spills
 * to its temp directory instead and the report takes longer, not more.
 */
export const REPORT_MEMORY_LIMIT = process.env.DBTATTIC_REPORT_MEMORY_LIMIT ?? '1GB';

export async function boundReportMemory(connection: DuckDBConnection): Promise<void> {
  await connection.run(`SET memory_limit = '${REPORT_MEMORY_LIMIT.replace(/'/g, '')}'`);
}
