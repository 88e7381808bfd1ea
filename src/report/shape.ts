import type { FactRow } from '../store/index.js';
import { codeDiff } from './code-diff.js';
import type { NodeChange, ReportNode, ReportRun, ReportSource, ReportTest } from './data.js';

/** Store rows → the report's shapes. Pure. */
export const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);
export const num = (value: unknown): number | null => (value === null || value === undefined || value === '' ? null : Number(value));
const FAILING = new Set(['fail', 'error', 'runtime error']);

export function reportRun(row: FactRow): ReportRun {
  const counts = row.status_counts && typeof row.status_counts === 'object' ? (row.status_counts as Record<string, number>) : {};
  return {
    id: String(row.invocation_id),
    at: text(row.invoked_at),
    command: text(row.command),
    target: text(row.target),
    branch: text(row.branch ?? row.git_branch),
    sha: text(row.git_sha),
    elapsed_s: num(row.elapsed_s),
    outcome: row.outcome === 'ok' || row.outcome === 'failed' ? row.outcome : 'none',
    counts,
    failed: num(row.failed_results) ?? 0,
    exit: num(row.run_exit_code),
  };
}

export function reportNode(id: string, defined: FactRow | undefined, ran: FactRow | undefined): ReportNode {
  return {
    id,
    name: text(defined?.name) ?? id.split('.').slice(2).join('.') ?? id,
    type: text(defined?.resource_type) ?? id.split('.')[0]!,
    path: text(defined?.path),
    materialization: text(defined?.materialization),
    current: defined?.current === true,
    runs: num(ran?.runs) ?? 0,
    p50_s: num(ran?.median_s),
    p95_s: num(ran?.p95_s),
    last_s: num(ran?.last_s),
  };
}

export function nodeChange(row: FactRow): NodeChange {
  const compiled = row.from_compiled !== null && row.to_compiled !== null ? codeDiff(text(row.from_compiled), text(row.to_compiled)) : null;
  return {
    kind: String(row.change_kind),
    what: strings(row.what_changed),
    macros: strings(row.changed_macros),
    run: String(row.to_invocation),
    from: String(row.from_invocation),
    at: text(row.changed_at),
    sha: text(row.git_sha),
    raw: codeDiff(text(row.from_raw), text(row.to_raw)),
    compiled,
  };
}

/** The run where the latest unbroken streak of failures (among runs that ran the test) began. */
export function failingSince(statuses: string[], runOf: (k: number) => ReportRun | undefined): ReportTest['failing_since'] {
  let start = -1;
  let ongoing = false;
  statuses.forEach((status, k) => {
    if (status === 'skipped') return;
    if (FAILING.has(status)) {
      if (!ongoing) start = k;
      ongoing = true;
    } else ongoing = false;
  });
  const run = start >= 0 ? runOf(start) : undefined;
  return run ? { run: run.id, sha: run.sha, ongoing } : null;
}

export function reportTest(row: FactRow, node: number, since: ReportTest['failing_since']): ReportTest {
  return {
    node,
    runs: num(row.runs) ?? 0,
    passes: num(row.passes) ?? 0,
    warns: num(row.warns) ?? 0,
    fails: num(row.fails) ?? 0,
    errors: num(row.errors) ?? 0,
    skips: num(row.skips) ?? 0,
    last: text(row.last_status),
    flaky: row.flaky === true,
    tested: text(row.tested_node),
    deleted: row.deleted === true,
    failing_since: since,
  };
}

/** Freshness checks grouped by source, each check pointing at its run. */
export function reportSources(rows: FactRow[], nodeIndex: (id: string) => number, runIndex: Map<string, number>): ReportSource[] {
  const bySource = new Map<string, ReportSource>();
  for (const row of rows) {
    const id = String(row.unique_id);
    const source = bySource.get(id) ?? { node: nodeIndex(id), name: `${text(row.source_name) ?? '?'}.${text(row.table_name) ?? '?'}`, checks: [] };
    source.checks.push({ run: runIndex.get(String(row.invocation_id)) ?? -1, status: text(row.status), age_s: num(row.age_s) });
    bySource.set(id, source);
  }
  return [...bySource.values()];
}
