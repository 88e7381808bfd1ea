/**
 * What a run's run_results.json says in a few numbers, kept in its artifact record so that
 * `state --last-success` and retention judge a run without reading its results (README,
 * Archive format). `format` names the rule that derived it: a summary of another format is
 * ignored and the results are read instead, so a changed rule never trusts an old summary.
 */
export const RUN_SUMMARY_FORMAT = 1;

export interface RunResultsSummary {
  format: number;
  /** The dbt command as dbtattic names it (`build`, `docs generate`, …), null when unknown. */
  command: string | null;
  target: string | null;
  /** Results that name a node. */
  total: number;
  /** Results by status, lower case (`success`, `error`, …; `unknown` when a result has none). */
  by_status: Record<string, number>;
}

/** The summary in a parsed record, or null when it is absent, of another format or ill-shaped. */
export function asRunResultsSummary(value: unknown): RunResultsSummary | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  if (v.format !== RUN_SUMMARY_FORMAT || !isCount(v.total) || !isTextOrNull(v.command) || !isTextOrNull(v.target)) return null;
  const byStatus = v.by_status;
  if (!byStatus || typeof byStatus !== 'object' || Array.isArray(byStatus) || !Object.values(byStatus).every(isCount)) return null;
  return { format: v.format, command: v.command, target: v.target, total: v.total, by_status: { ...(byStatus as Record<string, number>) } };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isTextOrNull(value: unknown): value is string | null {
  return value === null || typeof value === 'string';
}
