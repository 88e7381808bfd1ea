import { beginSweep, CHUNKS_PREFIX, FILES_PREFIX, idOfObjectKey, removeDeadHolders, type Backend, type StoredKey, type WaitNote } from '../archive/index.js';
import { AtticError } from '../errors.js';
import { forEachLimited } from '../vocab/index.js';
import { LiveSet } from './mark.js';

/**
 * Prune: mark and sweep. Mark every object a record needs (mark.ts); an object that is not
 * marked and older than the grace period is garbage. Before deleting, the sweep is announced
 * and prune waits for the captures at work (archive/prune-guard.ts), then marks again from the
 * records that appeared meanwhile, so an object a capture reused is never deleted. File indexes
 * go before chunks, so a prune killed at any point leaves only whole files: `verify` accepts it.
 */
export interface PruneOptions {
  now: Date;
  /** Unreferenced objects younger than this stay (writers of older versions, clocks). */
  graceMs: number;
  dryRun: boolean;
  onNote?: WaitNote;
}

export interface PruneReport {
  dryRun: boolean;
  /** Unreferenced objects deleted (or, dry, that would be). */
  files: number;
  chunks: number;
  bytes: number;
  /** Unreferenced, but younger than the grace period: left for a later prune. */
  young: number;
  /** Marked while the sweep waited: reused by a capture at work, so kept. */
  rescued: number;
}

export async function pruneArchive(backend: Backend, options: PruneOptions): Promise<PruneReport> {
  await removeDeadHolders(backend);
  const live = new LiveSet(backend);
  await live.markRecords();
  refuseDamage(live);
  const plan = await planSweep(backend, live, options.now.getTime() - options.graceMs);
  const report = {
    dryRun: options.dryRun,
    files: plan.files.length,
    chunks: plan.chunks.length,
    bytes: sizeOf([...plan.files, ...plan.chunks]),
    young: plan.young,
    rescued: 0,
  };
  if (options.dryRun) return report;
  const release = await beginSweep(backend, options.onNote);
  try {
    await live.markRecords();
    refuseDamage(live);
    const files = plan.files.filter((k) => !live.files.has(idOfObjectKey(k.key, FILES_PREFIX)!));
    const chunks = plan.chunks.filter((k) => !live.chunks.has(idOfObjectKey(k.key, CHUNKS_PREFIX)!));
    for (const stage of [files, chunks]) await forEachLimited(stage, 16, (k) => backend.delete(k.key));
    const rescued = plan.files.length + plan.chunks.length - files.length - chunks.length;
    return { ...report, files: files.length, chunks: chunks.length, bytes: sizeOf([...files, ...chunks]), rescued };
  } finally {
    await release();
  }
}

/**
 * A record whose file index or tree cannot be read hides which chunks it needs: sweeping then
 * could delete chunks a repair would bring back to use. As restic's prune after a failed check.
 */
function refuseDamage(live: LiveSet): void {
  if (live.damaged.size === 0) return;
  const some = [...live.damaged].slice(0, 3).join(', ');
  throw new AtticError(
    'archive-damaged',
    `Prune found ${live.damaged.size} missing or unreadable object(s) that records need (${some}); it deletes nothing beside damage. Run 'dbtattic verify --repair' first.`,
  );
}

interface SweepPlan {
  files: StoredKey[];
  chunks: StoredKey[];
  young: number;
}

/** Unmarked objects written before `cutoffMs`; an object whose age the storage does not give stays. */
export async function planSweep(backend: Backend, live: LiveSet, cutoffMs: number): Promise<SweepPlan> {
  const [files, chunks] = await Promise.all([backend.list(FILES_PREFIX), backend.list(CHUNKS_PREFIX)]);
  const unmarkedFiles = files.filter((k) => isObject(k, FILES_PREFIX) && !live.files.has(idOfObjectKey(k.key, FILES_PREFIX)!));
  const unmarkedChunks = chunks.filter((k) => isObject(k, CHUNKS_PREFIX) && !live.chunks.has(idOfObjectKey(k.key, CHUNKS_PREFIX)!));
  const old = (k: StoredKey): boolean => k.modifiedMs !== undefined && k.modifiedMs <= cutoffMs;
  const oldFiles = unmarkedFiles.filter(old);
  const oldChunks = unmarkedChunks.filter(old);
  return { files: oldFiles, chunks: oldChunks, young: unmarkedFiles.length + unmarkedChunks.length - oldFiles.length - oldChunks.length };
}

/** Something in chunks/ or files/ not named by a hash is not ours to delete (verify reports it). */
function isObject(k: StoredKey, prefix: string): boolean {
  return idOfObjectKey(k.key, prefix) !== undefined;
}

function sizeOf(keys: readonly StoredKey[]): number {
  return keys.reduce((sum, k) => sum + k.size, 0);
}
