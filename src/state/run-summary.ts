import { readBlob, type ArtifactRecord, type Backend } from '../archive/index.js';
import { extractRunResults } from '../extract/index.js';

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

export async function readRunSummary(backend: Backend, record: ArtifactRecord): Promise<RunSummary> {
  const extracted = extractRunResults(await readBlob(backend, record.sha256), { invocationId: record.invocation_id, acceptNewerSchema: true });
  const byStatus: Record<string, number> = {};
  for (const result of extracted.results) {
    const status = result.status ?? 'unknown';
    byStatus[status] = (byStatus[status] ?? 0) + 1;
  }
  return {
    command: extracted.invocation.command,
    target: extracted.invocation.target,
    total: extracted.results.length,
    failed: FAILED_STATUSES.reduce((sum, status) => sum + (byStatus[status] ?? 0), 0),
    byStatus,
  };
}
