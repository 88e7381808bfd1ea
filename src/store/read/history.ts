import type { DuckDBConnection } from '@duckdb/node-api';
import type { History, HistoryRow, NodeResult } from '../../answers/index.js';
import { plainResult } from '../db/plain-rows.js';

export type { History, HistoryRow, NodeResult };

export interface HistoryFilter {
  limit: number;
  target?: string;
  command?: string;
  /** ok: results and none failed; failed: some error/fail; none: no results (a parse). */
  status?: 'ok' | 'failed' | 'none';
  branch?: string;
  /** Inclusive bounds on when the invocation started, ISO 8601 instants. */
  since?: string;
  until?: string;
  /** Only invocations that ran this node: a unique id, or a node's name. */
  node?: string;
}

const FAILED = "['error', 'fail', 'runtime error', 'partial success']";

/**
 * Every result an invocation's status counts come from: run results, and the checks of
 * `dbt source freshness` (sources.json), whose errors fail its run as a test's do.
 */
const RESULTS = `(SELECT invocation_id, unique_id, status, execution_time, message FROM run_result
  UNION ALL SELECT invocation_id, unique_id, status, execution_time, message FROM source_freshness)`;
const IS_FAILED = `r.status IN (SELECT unnest(${FAILED}))`;

/** Newest first. The outcome is derived the way `state --last-success` judges success. */
export async function readHistory(connection: DuckDBConnection, filter: HistoryFilter, withFailures = false): Promise<History> {
  const { where, params } = whereOf(filter, withFailures);
  params.push(filter.limit);
  const sql = `SELECT *, count(*) OVER () AS matched, (SELECT count(*) FROM invocation) AS stored FROM (
      SELECT invocation_id, coalesce(started_at, generated_at) AS happened_at, command, target, status_counts,
             CASE WHEN coalesce(result_count, 0) = 0 THEN 'none'
                  WHEN list_has_any(json_keys(status_counts), ${FAILED}) THEN 'failed'
                  ELSE 'ok' END AS outcome,
             elapsed_s, git_sha, git_branch, branch, dbt_version, run_exit_code, run_id
      FROM invocation) h
    ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY happened_at DESC NULLS LAST, run_id DESC LIMIT $${params.length}`;
  const found = plainResult(await connection.runAndReadAll(sql, params)).rows;
  const rows = found.map(historyRow);
  if (filter.node) await attach(connection, rows, 'node_results', nodeClause(1), [filter.node]);
  // With a node, the failures of that node: the runs listed are those where it failed.
  if (withFailures) await attach(connection, rows, 'failures', filter.node ? `${IS_FAILED} AND ${nodeClause(1)}` : IS_FAILED, filter.node ? [filter.node] : []);
  const stored = found[0] ? Number(found[0].stored) : await countInvocations(connection);
  return { rows, matched: found[0] ? Number(found[0].matched) : 0, stored };
}

function whereOf(filter: HistoryFilter, nodeFailed: boolean): { where: string[]; params: (string | number)[] } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  const add = (clause: string, value: string | number): void => {
    params.push(value);
    where.push(clause.replaceAll('?', `$${params.length}`));
  };
  if (filter.target) add('target = ?', filter.target);
  if (filter.command) add('command = ?', filter.command);
  if (filter.status) add('outcome = ?', filter.status);
  if (filter.branch) add('branch = ?', filter.branch);
  if (filter.since) add('happened_at >= ?::TIMESTAMPTZ', filter.since);
  if (filter.until) add('happened_at <= ?::TIMESTAMPTZ', filter.until);
  if (filter.node) {
    params.push(filter.node);
    where.push(`invocation_id IN (SELECT r.invocation_id FROM ${RESULTS} r WHERE ${nodeClause(params.length)}${nodeFailed ? ` AND ${IS_FAILED}` : ''})`);
  }
  return { where, params };
}

/**
 * A node named by unique id or by name: a test's unique id ends in a hash nobody types, and a
 * name is what `dbt --select` takes. Names come from any manifest that held the node.
 */
function nodeClause(param: number): string {
  return `(r.unique_id = $${param} OR r.unique_id IN (SELECT unique_id FROM node_version WHERE name = $${param}))`;
}

/** Adds, to each row, its run results that satisfy `condition` (on `r`, a run_result). */
async function attach(connection: DuckDBConnection, rows: HistoryRow[], key: 'node_results' | 'failures', condition: string, params: string[]): Promise<void> {
  if (rows.length === 0) return;
  const ids = rows.map((row) => row.invocation_id);
  const placeholders = ids.map((_, i) => `$${params.length + i + 1}`).join(', ');
  const sql = `SELECT r.invocation_id, r.unique_id, r.status, r.execution_time, r.message FROM ${RESULTS} r
    WHERE ${condition} AND r.invocation_id IN (${placeholders}) ORDER BY r.invocation_id, r.unique_id`;
  const found = plainResult(await connection.runAndReadAll(sql, [...params, ...ids])).rows;
  for (const row of rows) row[key] = [];
  const byId = new Map(rows.map((row) => [row.invocation_id, row]));
  for (const r of found) {
    byId.get(String(r.invocation_id))?.[key]?.push({
      unique_id: String(r.unique_id),
      status: text(r.status),
      execution_time: typeof r.execution_time === 'number' ? r.execution_time : null,
      message: text(r.message),
    });
  }
}

/** The branches some invocation is filed on, by name. */
export async function branchesWithRuns(connection: DuckDBConnection): Promise<string[]> {
  return plainResult(await connection.runAndReadAll('SELECT DISTINCT branch FROM invocation WHERE branch IS NOT NULL ORDER BY branch')).rows.map((r) =>
    String(r.branch),
  );
}

async function countInvocations(connection: DuckDBConnection): Promise<number> {
  return Number(plainResult(await connection.runAndReadAll('SELECT count(*) AS n FROM invocation')).rows[0]?.n ?? 0);
}

function historyRow(row: Record<string, unknown>): HistoryRow {
  return {
    invocation_id: String(row.invocation_id),
    at: text(row.happened_at),
    command: text(row.command),
    target: text(row.target),
    status_counts: row.status_counts && typeof row.status_counts === 'object' ? (row.status_counts as Record<string, number>) : null,
    outcome: row.outcome === 'ok' || row.outcome === 'failed' ? row.outcome : 'none',
    elapsed_s: typeof row.elapsed_s === 'number' ? row.elapsed_s : null,
    git_sha: text(row.git_sha),
    git_branch: text(row.git_branch),
    branch: text(row.branch),
    dbt_version: text(row.dbt_version),
    run_exit_code: typeof row.run_exit_code === 'number' ? row.run_exit_code : null,
  };
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
