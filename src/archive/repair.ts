import { sha256 } from '../vocab/index.js';
import type { Backend } from './backend.js';
import { rewriteBranchRef, strayBranchKeys, unreadableBranchRefs } from './branches.js';
import { FORMAT_KEY } from './layout.js';
import { listCaptureRecords } from './records.js';
import { repairBlob, restoreChunks } from './objects.js';
import { ARCHIVE_FORMAT } from './open.js';
import { withWriterLease } from './prune-guard.js';
import { verifyArchive, type Summarize, type VerifyReport } from './verify.js';

/**
 * `verify --repair`: re-writes what can be re-derived, then verifies again to say what remains
 * lost. Objects are named by their content, so an intact copy of an artifact (the file still in
 * target/, a state directory written earlier) restores its file index and every chunk it
 * contains, including chunks it shares with a damaged older version. A missing FORMAT is
 * written again: every record in this archive says format 1, the only format there is.
 * Records and capture records have no second copy here; they stay lost and are named.
 */
export interface RepairReport {
  restored: { format: boolean; chunks: number; files: number; refs: number };
  /** The archive as verified after the repair: its problems are what remains lost. */
  after: VerifyReport;
}

export async function repairArchive(
  backend: Backend,
  copies: () => AsyncIterable<Buffer>,
  onProgress?: (done: number, total: number) => void,
  summarize?: Summarize,
): Promise<RepairReport> {
  const before = await verifyArchive(backend, onProgress, summarize);
  const restored = { format: await restoreFormat(backend), chunks: 0, files: 0, refs: await restoreBranchRefs(backend, before) };
  const wantedChunks = new Set(before.damaged.chunks);
  const wantedFiles = new Set(before.damaged.files);
  // Restoring writes objects a prune could otherwise find unreferenced mid-write: under a lease.
  if (wantedChunks.size + wantedFiles.size > 0)
    await withWriterLease(backend, (guarded) => restoreFromCopies(guarded, copies, wantedChunks, wantedFiles, restored));
  const changed = restored.format || restored.refs > 0;
  return { restored, after: before.ok && !changed ? before : await verifyArchive(backend, undefined, summarize) };
}

async function restoreFromCopies(
  backend: Backend,
  copies: () => AsyncIterable<Buffer>,
  wantedChunks: Set<string>,
  wantedFiles: Set<string>,
  restored: { chunks: number; files: number },
): Promise<void> {
  for await (const bytes of copies()) {
    for (const id of await restoreChunks(backend, bytes, wantedChunks)) {
      wantedChunks.delete(id);
      restored.chunks++;
    }
    const id = sha256(bytes);
    if (!wantedFiles.has(id)) continue;
    await repairBlob(backend, bytes, id);
    wantedFiles.delete(id);
    restored.files++;
  }
}

/** Branch refs verify found unreadable, written again from the capture records; keys that name no branch, removed. */
async function restoreBranchRefs(backend: Backend, report: VerifyReport): Promise<number> {
  const bad = report.problems.filter((p) => p.kind === 'bad-ref');
  if (bad.length === 0) return 0;
  const [refs, captures, stray] = await Promise.all([unreadableBranchRefs(backend), listCaptureRecords(backend, () => undefined), strayBranchKeys(backend)]);
  let written = 0;
  for (const key of stray) {
    await backend.delete(key);
    written++;
  }
  for (const { name } of refs) if (await rewriteBranchRef(backend, name, captures, new Date())) written++;
  return written;
}

async function restoreFormat(backend: Backend): Promise<boolean> {
  if ((await backend.get(FORMAT_KEY)) !== undefined) return false;
  return backend.putIfAbsent(FORMAT_KEY, Buffer.from(`${ARCHIVE_FORMAT}\n`));
}
