import type { DuckDBConnection } from '@duckdb/node-api';
import { plainResult } from './plain-rows.js';

export interface HistoryFilter {
  limit: number;
  target?: string;
  command?: string;
  /** ok: results and none failed; failed: some error/fail; none: no results (a parse). */
  status?: 'ok' | 'failed' | 'none';
  branch?: string;
}

export interface HistoryRow {
  invocation_id: string;
  at: string | null;
  command: string | null;
  target: string | null;
  status_counts: Record<string, number> | null;
  outcome: 'ok' | 'failed' | 'none';
  elapsed_s: number | null;
  git_sha: string | null;
  git_branch: string | null;
  branch: string | null;
  dbt_version: string | null;
  run_exit_code: number | null;
}

/** Newest first. The outcome is derived the way `state --last-success` judges success. */
export async function readHistory(connection: DuckDBConnection, filter: HistoryFilter): Promise<HistoryRow[]> {
  const where: string[] = [];
  const params: (string | number)[] = [];
  const add = (clause: string, value: string | number): void => {
    params.push(value);
    where.push(clause.replace('?', `$${params.length}`));
  };
  if (filter.target) add('target = ?', filter.target);
  if (filter.command) add('command = ?', filter.command);
  if (filter.status) add('outcome = ?', filter.status);
  if (filter.branch) add('branch = ?', filter.branch);
  params.push(filter.limit);
  const sql = `SELECT * FROM (
      SELECT invocation_id, coalesce(completed_at, generated_at) AS happened_at, command, target, status_counts,
             CASE WHEN coalesce(result_count, 0) = 0 THEN 'none'
                  WHEN list_has_any(json_keys(status_counts), ['error', 'fail', 'runtime error', 'partial success']) THEN 'failed'
                  ELSE 'ok' END AS outcome,
             elapsed_s, git_sha, git_branch, branch, dbt_version, run_exit_code, run_id
      FROM invocation) h
    ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY happened_at DESC NULLS LAST, run_id DESC LIMIT $${params.length}`;
  const rows = plainResult(await connection.runAndReadAll(sql, params)).rows;
  return rows.map((row) => ({
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
  }));
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
