import { readBlob, type ArtifactRecord, type Backend } from '../archive/index.js';
import { summarizeRunResults } from '../extract/index.js';
import type { RunResultsSummary } from '../vocab/index.js';

/**
 * What `state` needs from run_results: the command, the target, and whether anything failed.
 * Statuses come from extract, so `state` and the store (`history --status`) judge a run by the
 * same rule, across every dbt version.
 */
export interface RunSummary {
  command: string | null;
  target: string | null;
  total: number;
  failed: number;
  byStatus: Record<string, number>;
}

export const FAILED_STATUSES = ['error', 'fail', 'runtime error', 'partial success'];

/**
 * The summary capture kept in the record when there is one (docs/archive-format.md): judging
 * a run then costs no read of its results, however many runs there are. A record without one
 * (written by an older dbtattic) is summarised from its bytes, by the same function.
 */
export async function readRunSummary(backend: Backend, record: ArtifactRecord): Promise<RunSummary> {
  const summary = record.summary ?? summarizeRunResults(await readBlob(backend, record.sha256), record.invocation_id);
  return judged(summary);
}

function judged(summary: RunResultsSummary): RunSummary {
  const byStatus = summary.by_status;
  return {
    command: summary.command,
    target: summary.target,
    total: summary.total,
    failed: FAILED_STATUSES.reduce((sum, status) => sum + (byStatus[status] ?? 0), 0),
    byStatus,
  };
}
