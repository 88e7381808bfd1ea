import { RUN_SUMMARY_FORMAT, type RunResultsSummary } from '../vocab/index.js';
import { extractRunResults } from './run-results.js';

/**
 * run_results.json → its summary (vocab/run-results-summary.ts), by the same reading the store's rows
 * come from, so `state`, retention and `history --status` judge a run alike. Capture keeps it
 * in the artifact record; a record without one is summarised from its bytes when read.
 */
export function summarizeRunResults(buf: Buffer, invocationId: string): RunResultsSummary {
  const extracted = extractRunResults(buf, { invocationId, acceptNewerSchema: true });
  const byStatus: Record<string, number> = {};
  for (const result of extracted.results) {
    const status = result.status ?? 'unknown';
    byStatus[status] = (byStatus[status] ?? 0) + 1;
  }
  return {
    format: RUN_SUMMARY_FORMAT,
    command: extracted.invocation.command,
    target: extracted.invocation.target,
    total: extracted.results.length,
    by_status: byStatus,
  };
}
