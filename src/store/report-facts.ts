import type { DuckDBConnection } from '@duckdb/node-api';
import { plainResult } from './plain-rows.js';

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
  return readFacts(connection, scope, `
    SELECT i.invocation_id, s.seq, s.invoked_at, s.project_name, i.completed_at, i.command, i.target, i.branch, i.git_sha, i.git_branch,
           i.elapsed_s, i.status_counts, coalesce(i.result_count, 0) AS result_count, i.run_exit_code, s.builds, s.has_manifest,
           (SELECT count(*) FROM run_result AS r WHERE r.invocation_id = i.invocation_id AND r.status IN ${FAILED}) AS failed_results,
           CASE WHEN coalesce(i.result_count, 0) = 0 THEN 'none'
                WHEN list_has_any(json_keys(i.status_counts), ['error', 'fail', 'runtime error', 'partial success']) THEN 'failed'
                ELSE 'ok' END AS outcome
    FROM scope JOIN v_invocation_sequence AS s USING (invocation_id) JOIN invocation AS i USING (invocation_id)
    ORDER BY s.seq`);
}

/**
 * Per node: its results in scope as parallel lists ordered by seq (one row per node, not per
 * result, so 2 million results arrive as 10,000 rows), and the runtime figures v_node_runtime
 * defines (median and p95 of completed executions), over the scope.
 */
export function readNodeSeries(connection: DuckDBConnection, scope: ReportScope): Promise<FactRow[]> {
  return readFacts(connection, scope, `,
    result AS (
      SELECT r.unique_id, sc.seq, r.status, r.execution_time, r.rows_affected,
             r.status IN ('success', 'pass', 'warn', 'fail') AND s.builds AND r.execution_time IS NOT NULL AS completed
      FROM run_result AS r JOIN scope AS sc USING (invocation_id) JOIN v_invocation_sequence AS s USING (invocation_id)
      WHERE s.builds
    )
    SELECT unique_id,
           list(seq ORDER BY seq) AS seqs,
           list(status ORDER BY seq) AS statuses,
           list(round(execution_time * 1000)::BIGINT ORDER BY seq) AS ms,
           list(rows_affected ORDER BY seq) AS rows_affected,
           count(*) FILTER (WHERE completed) AS runs,
           median(execution_time) FILTER (WHERE completed) AS median_s,
           quantile_cont(execution_time, 0.95) FILTER (WHERE completed) AS p95_s,
           arg_max(execution_time, seq) FILTER (WHERE completed) AS last_s
    FROM result GROUP BY unique_id`);
}

/** Every node any manifest in scope held, as its newest manifest there has it. */
export function readReportNodes(connection: DuckDBConnection, scope: ReportScope): Promise<FactRow[]> {
  return readFacts(connection, scope, `
    SELECT n.unique_id, arg_max(n.name, sc.seq) AS name, arg_max(n.resource_type, sc.seq) AS resource_type,
           arg_max(n.path, sc.seq) AS path, arg_max(n.materialization, sc.seq) AS materialization
    FROM node AS n JOIN scope AS sc USING (invocation_id)
    WHERE NOT n.disabled
    GROUP BY n.unique_id`);
}

/** Failed and skipped results of the given runs, with dbt's messages. */
export function readRunProblems(connection: DuckDBConnection, scope: ReportScope): Promise<FactRow[]> {
  return readFacts(connection, scope, `
    SELECT r.invocation_id, r.unique_id, r.status, r.message, r.failures
    FROM run_result AS r JOIN scope USING (invocation_id)
    WHERE r.status IN ${FAILED} OR r.status = 'skipped' OR (r.status = 'warn')
    ORDER BY r.invocation_id, r.unique_id`);
}
