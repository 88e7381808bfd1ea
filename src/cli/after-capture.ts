import type { CaptureOutcome } from '../capture/index.js';
import type { AtticConfig } from '../config/resolve.js';
import { compactInBackground } from './background-compaction.js';
import type { CliIo } from './io.js';

/**
 * Loading the store's code (DuckDB's client and native library, ingest) costs a capture about
 * 50 ms of start-up. Begun when the capture knows it will write something, it is done by the
 * time the artifacts are in the archive: the capture's writes leave the thread idle in between.
 */
export function preloadStore(config: AtticConfig): (() => void) | undefined {
  if (config.remote) return undefined;
  return () => void import('../store/index.js').catch(() => undefined);
}

/**
 * After a capture wrote something, bring the store up to date. DuckDB is loaded only here, so
 * a capture that found nothing new never pays for it. Problems are talk, never failures: the
 * archive already holds everything.
 */
export async function updateStoreAfter(io: CliIo, config: AtticConfig, outcomes: (CaptureOutcome | null)[], quiet = false): Promise<void> {
  const captureIds = outcomes.filter((o) => o?.record?.artifacts.some((a) => a.status === 'captured' || a.status === 'repaired')).map((o) => o!.record!.capture_id);
  // A remote store's local cache is caught up by the next reading command (often on another
  // machine, and never on most CI runners): no downloads in front of dbt.
  if (captureIds.length === 0 || config.remote) return;
  const result = await import('../store/index.js')
    .then(({ catchUpAfterCapture }) => catchUpAfterCapture(config, captureIds))
    .catch((error: unknown) => ({ status: 'failed' as const, error: error instanceof Error ? error.message : String(error) }));
  if (result.status === 'synced' && result.compactionDue) await compactInBackground(io, config).catch(() => undefined);
  if (result.status === 'busy' && !quiet) io.stderr(io.color.dim('dbtattic: the store is in use by another process; it catches up on the next read.\n'));
  if (result.status === 'stale' && !quiet) io.stderr(io.color.dim('dbtattic: the store was written by another dbtattic version; the next read rebuilds it.\n'));
  if (result.status === 'failed') io.stderr(`${io.color.yellow('dbtattic warning:')} the store could not be updated (${result.error}); the capture is safe in the archive. Run dbtattic rebuild.\n`);
}
