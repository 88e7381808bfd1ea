/** What `state` needs from run_results: the command, the target, and whether anything failed. */
export interface RunSummary {
  command: string | null;
  target: string | null;
  total: number;
  failed: number;
  byStatus: Record<string, number>;
}

const FAILED = new Set(['error', 'fail', 'runtime error', 'partial success']);
const KNOWN = new Set([...FAILED, 'success', 'pass', 'warn', 'skipped', 'no-op', 'reused']);

export function summarizeRunResults(json: unknown): RunSummary {
  const doc = asRecord(json);
  const args = asRecord(doc.args);
  const results = Array.isArray(doc.results) ? doc.results : [];
  const byStatus: Record<string, number> = {};
  for (const result of results) {
    const status = statusOf(asRecord(result));
    byStatus[status] = (byStatus[status] ?? 0) + 1;
  }
  return {
    command: typeof args.which === 'string' ? args.which : null,
    target: typeof args.target === 'string' ? args.target : null,
    total: results.length,
    failed: Object.entries(byStatus).reduce((sum, [status, n]) => sum + (FAILED.has(status) ? n : 0), 0),
    byStatus,
  };
}

// TODO(extract): replace with extract's status normaliser once it lands.
function statusOf(result: Record<string, unknown>): string {
  const status = typeof result.status === 'string' ? result.status.toLowerCase() : null;
  if (status && KNOWN.has(status)) return status;
  return result.error ? 'error' : 'success';
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
