import type { CaptureOutcome } from '../capture/index.js';
import { filedManifestInvocation, type CapturePlan } from '../capture/capture-plan.js';
import type { CatchUpAhead } from '../store/index.js';
import type { AtticConfig } from '../config/resolve.js';
import { compactInBackground, startDetached } from './background-work.js';
import type { CliIo } from './io.js';

/**
 * The store, opened while the capture writes the archive (store/sync/catch-up-ahead.ts): loading
 * DuckDB, opening the file and reading what ingest reads first cost about 0.5 s at 10,000 nodes,
 * and begun when the capture knows it will write, they run beside its hashing and writes.
 */
export interface StoreAhead {
  /** For the capture to call when it knows what it will write. */
  onWriting: (plan: CapturePlan) => void;
  /** The store opened ahead; null when it could not be; undefined when the capture never wrote. */
  opened(): Promise<CatchUpAhead | null> | undefined;
  /** Lets the store go without catching up (the capture failed). */
  release(): Promise<void>;
}

export function storeAhead(config: AtticConfig): StoreAhead | undefined {
  // A remote store is caught up by the next reading command, not after a capture (below).
  if (config.remote) return undefined;
  let opening: Promise<CatchUpAhead | null> | undefined;
  return {
    onWriting: (plan) => {
      // Outputs alone, or a `run` that left nothing new, are never caught up on after the capture.
      if (plan.nothingNew) return;
      opening ??= import('../store/index.js').then(({ openStoreAhead }) => openStoreAhead(config, filedManifestInvocation(plan))).catch(() => null);
    },
    opened: () => opening,
    release: async () => releaseAhead(await opening),
  };
}

async function releaseAhead(ahead: CatchUpAhead | null | undefined): Promise<void> {
  if (ahead) (await import('../store/index.js')).releaseStoreAhead(ahead);
}

/**
 * After a capture wrote something, bring the store up to date. DuckDB is loaded only here, so
 * a capture that found nothing new never pays for it. Problems are talk, never failures: the
 * archive already holds everything.
 */
export async function updateStoreAfter(io: CliIo, config: AtticConfig, outcomes: (CaptureOutcome | null)[], quiet = false, ahead?: StoreAhead): Promise<void> {
  await catchUpCaptures(io, config, capturesToIngest(outcomes), quiet, await ahead?.opened());
}

/** The catch-up after a capture, of the captures it filed (`sync --after-capture` runs it alone). */
export async function catchUpCaptures(io: CliIo, config: AtticConfig, captureIds: string[], quiet: boolean, opened?: CatchUpAhead | null): Promise<void> {
  // A remote store's local cache is caught up by the next reading command (often on another
  // machine, and never on most CI runners): no downloads in front of dbt.
  if (captureIds.length === 0 || config.remote) return releaseAhead(opened);
  const result = await import('../store/index.js')
    .then(({ catchUpAfterCapture }) => catchUpAfterCapture(config, captureIds, opened))
    .catch((error: unknown) => ({ status: 'failed' as const, error: error instanceof Error ? error.message : String(error) }));
  if (result.status === 'synced' && result.compactionDue) await compactInBackground(io, config).catch(() => undefined);
  if (result.status === 'synced') await exportAfterCapture(io, config, quiet);
  if (result.status === 'busy' && !quiet) io.stderr(io.color.dim('dbtattic: the store is in use by another process; it catches up on the next read.\n'));
  if (result.status === 'stale' && !quiet) io.stderr(io.color.dim('dbtattic: the store was written by another dbtattic version; the next read rebuilds it.\n'));
  if (result.status === 'failed')
    io.stderr(
      `${io.color.yellow('dbtattic warning:')} the store could not be updated (${result.error}); the capture is safe in the archive. Run dbtattic rebuild.\n`,
    );
}

/**
 * With `export: {to: …}` in dbtattic.yml, what the store just took in goes to the dataset too
 * (docs/export.md): the export writes only the files the dataset lacks, so this costs the
 * digests' read and a listing. Like the catch-up, a problem is talk, never a failed capture:
 * the next capture, or `dbtattic export`, writes whatever is missing. A busy or stale store is
 * not caught up here, and not exported from either.
 */
async function exportAfterCapture(io: CliIo, config: AtticConfig, quiet: boolean): Promise<void> {
  if (!config.export.to) return;
  const location = config.export.to.value;
  const outcome = await import('../export/index.js')
    .then(({ exportHistory }) => exportHistory(config))
    .catch((error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }));
  if ('error' in outcome) {
    io.stderr(
      `${io.color.yellow('dbtattic warning:')} the export to ${location} failed (${outcome.error}); the capture is safe in the archive. Run dbtattic export.\n`,
    );
  } else if (!quiet && outcome.written + outcome.deleted > 0) {
    io.stderr(io.color.dim(`dbtattic: exported to ${outcome.location}: ${outcome.written} file(s) written, ${outcome.deleted} deleted.\n`));
  }
}

/**
 * The same catch-up, by a detached `dbtattic sync` (background-work.ts): for `run`, whose
 * caller waits on dbt's exit code, the 0.3-0.5 s of DuckDB's load, ingest and checkpoint would
 * come after dbt ended, on every build. The archive is written before this returns; a reading
 * command that comes first catches up itself, or waits for the child's write lock
 * (store/db/busy-wait.ts). What the child cannot say (a store in use, of another version, failed),
 * the next reading command says.
 */
export function catchUpInBackground(io: CliIo, config: AtticConfig, outcomes: (CaptureOutcome | null)[]): void {
  const captureIds = capturesToIngest(outcomes);
  if (captureIds.length === 0 || config.remote) return;
  startDetached(io, config, ['sync', '--after-capture', captureIds.join(',')]);
}

function capturesToIngest(outcomes: (CaptureOutcome | null)[]): string[] {
  return outcomes.filter((o) => o?.record?.artifacts.some((a) => a.status === 'captured' || a.status === 'repaired')).map((o) => o!.record!.capture_id);
}
