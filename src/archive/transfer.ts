import type { Backend } from './backend.js';
import { withWriterLease } from './prune-guard.js';
import { advanceBranch, listBranches, type Branch } from './branches.js';
import { putJournalEntry } from './journal.js';
import { CAPTURE_RECORDS_PREFIX, captureRecordKey, chunkKey, fileKey, INVOCATION_RECORDS_PREFIX, refKey } from './layout.js';
import { chunkStoredFor, readFileIndex } from './objects.js';
import { parseArtifactRecord, parseCaptureRecord, type ArtifactRecord } from './records.js';
import { namesOnly, replayForget } from './forget-records.js';
import { FORGOTTEN_PREFIX, forgottenInvocations, readForgetRecords } from './forgotten.js';
import { forEachLimited } from '../vocab/parallel.js';
import { newTimeId } from '../vocab/index.js';

/**
 * Copies what one archive has and another lacks (push, pull). Content addressing makes it
 * idempotent: objects and records are copied byte for byte, create-only, in the order a
 * capture writes them (chunks, file index, artifact record, capture record), after a journal
 * entry naming the records, so a copy cut short leaves a consistent archive that readers of
 * object storage still find. Branch heads are merged, never overwritten: a head moves forward
 * when the other side's newest capture on that branch is newer and nothing on the target's side
 * is unknown to the source; otherwise the branch has diverged, and is reported. A forget made
 * on the source is made on the target too, first; and nothing of an invocation either side
 * forgot is copied, so a forget is never undone by a copy.
 */
export interface TransferReport {
  /** Forgets the source had made and the target had not, made there. */
  forgets: number;
  artifactRecords: number;
  captures: number;
  objects: number;
  branches: { name: string; outcome: 'created' | 'advanced' | 'same' | 'behind' | 'diverged'; source: string | null; target: string | null }[];
}

export type TransferProgress = (done: number, total: number) => void;

export async function transferArchive(from: Backend, to: Backend, onProgress?: TransferProgress, now = new Date()): Promise<TransferReport> {
  // The receiving side is written like a capture writes: under a lease a prune respects.
  return withWriterLease(to, (guarded) => transferGuarded(from, guarded, onProgress, now));
}

async function transferGuarded(from: Backend, to: Backend, onProgress: TransferProgress | undefined, now: Date): Promise<TransferReport> {
  const forgets = await replayForgets(from, to, now);
  const forgotten = await forgottenInvocations(to);
  const [artifactKeys, allCaptureKeys] = await Promise.all([missingKeys(from, to, INVOCATION_RECORDS_PREFIX), missingKeys(from, to, CAPTURE_RECORDS_PREFIX)]);
  const records = (await readRecords(from, artifactKeys)).filter(({ record }) => !forgotten.has(record.invocation_id));
  const captureKeys = await capturesToCopy(from, allCaptureKeys, forgotten);
  if (artifactKeys.length + captureKeys.length > 0) {
    await putJournalEntry(to, {
      journal_id: newTimeId(now),
      captures: captureKeys.map((k) => decodeURIComponent(k.slice(CAPTURE_RECORDS_PREFIX.length, -'.json'.length))),
      artifact_records: records.map(({ record: r }) => ({ invocation_id: r.invocation_id, artifact: r.artifact, sha256: r.sha256 })),
    });
  }
  let objects = 0;
  let done = 0;
  const total = records.length + captureKeys.length;
  for (const { key, bytes, record } of records) {
    objects += await copyBlob(from, to, record.sha256);
    await to.putIfAbsent(key, bytes);
    onProgress?.(++done, total);
  }
  await forEachLimited(captureKeys, 8, async (key) => {
    const bytes = await from.get(key);
    if (bytes) await to.putIfAbsent(key, bytes);
    onProgress?.(++done, total);
  });
  const branches = await mergeBranches(from, to, new Set(captureKeys), now);
  return { forgets, artifactRecords: records.length, captures: captureKeys.length, objects, branches };
}

/** Makes here the forgets the source made that this archive lacks, oldest first. */
async function replayForgets(from: Backend, to: Backend, now: Date): Promise<number> {
  const missing = await missingKeys(from, to, FORGOTTEN_PREFIX);
  const records = await readForgetRecords(from, missing);
  for (const record of records) await replayForget(to, record, now);
  return records.length;
}

/** The capture records to copy: not one that names only invocations forgotten here (forget removes those). */
async function capturesToCopy(from: Backend, keys: readonly string[], forgotten: ReadonlySet<string>): Promise<string[]> {
  if (forgotten.size === 0) return [...keys];
  const kept: string[] = [];
  await forEachLimited(keys, 16, async (key) => {
    const bytes = await from.get(key);
    if (bytes && !namesOnlyForgotten(key, bytes, forgotten)) kept.push(key);
  });
  return kept.sort();
}

async function missingKeys(from: Backend, to: Backend, prefix: string): Promise<string[]> {
  const [source, target] = await Promise.all([from.list(prefix), to.list(prefix)]);
  const present = new Set(target.map((k) => k.key));
  return source.map((k) => k.key).filter((key) => key.endsWith('.json') && !present.has(key)).sort();
}

async function readRecords(from: Backend, keys: string[]): Promise<{ key: string; bytes: Buffer; record: ArtifactRecord }[]> {
  const out: { key: string; bytes: Buffer; record: ArtifactRecord }[] = [];
  await forEachLimited(keys, 16, async (key) => {
    const bytes = await from.get(key);
    if (bytes) out.push({ key, bytes, record: parseArtifactRecord(key, bytes) });
  });
  return out.sort((a, b) => a.key.localeCompare(b.key));
}

/** Copies an artifact's chunks, then its file index; returns how many objects were new there. */
async function copyBlob(from: Backend, to: Backend, id: string): Promise<number> {
  if (await to.has(fileKey(id))) return 0;
  const index = await readFileIndex(from, id);
  let copied = 0;
  await forEachLimited([...new Set(index.chunks.map(([chunk]) => chunk))], 8, async (chunk) => {
    if (await to.has(chunkKey(chunk))) return;
    const bytes = await from.get(chunkKey(chunk));
    if (bytes && (await to.putIfAbsent(chunkKey(chunk), await chunkStoredFor(to, bytes)))) copied++;
  });
  const indexBytes = await from.get(fileKey(id));
  if (indexBytes && (await to.putIfAbsent(fileKey(id), indexBytes))) copied++;
  return copied;
}

async function mergeBranches(from: Backend, to: Backend, copiedCaptures: Set<string>, now: Date): Promise<TransferReport['branches']> {
  const [source, target] = await Promise.all([listBranches(from), listBranches(to)]);
  const byName = new Map(target.map((b) => [b.name, b]));
  const out: TransferReport['branches'] = [];
  for (const branch of source) {
    const there = byName.get(branch.name);
    const outcome = await mergeBranch(from, to, branch, there, copiedCaptures, now);
    out.push({ name: branch.name, outcome, source: branch.head_capture_id, target: there?.head_capture_id ?? null });
  }
  return out;
}

/**
 * Before this transfer, did the target know the source's head, and does the source know the
 * target's? Knowing the other's head means being at or past it: that side's head wins. Neither
 * knowing the other's: both lines moved on separately, diverged.
 */
async function mergeBranch(from: Backend, to: Backend, branch: Branch, there: Branch | undefined, copied: Set<string>, now: Date): Promise<TransferReport['branches'][number]['outcome']> {
  if (!there) {
    // The ref itself carries the branch's base (branch create); then the head, if any.
    const bytes = await from.get(refKey('branches', branch.name));
    if (bytes) await to.putIfAbsent(refKey('branches', branch.name), bytes);
    if (branch.head_capture_id) await advanceBranch(to, branch.name, branch.head_capture_id, branch.head_invocation_id, now);
    return 'created';
  }
  const mine = branch.head_capture_id;
  const theirs = there.head_capture_id;
  if (mine === theirs || mine === null) return 'same';
  const targetKnewMine = !copied.has(captureRecordKey(mine));
  const sourceKnowsTheirs = theirs === null || (await from.has(captureRecordKey(theirs)));
  if (sourceKnowsTheirs && mine > (theirs ?? '')) {
    await advanceBranch(to, branch.name, mine, branch.head_invocation_id, now);
    return 'advanced';
  }
  return targetKnewMine || sourceKnowsTheirs ? 'behind' : 'diverged';
}

export function divergedBranches(report: TransferReport): TransferReport['branches'] {
  return report.branches.filter((b) => b.outcome === 'diverged');
}

/** A record that cannot be read is copied as it is, as before forgets were: verify on either side says so. */
function namesOnlyForgotten(key: string, bytes: Buffer, forgotten: ReadonlySet<string>): boolean {
  try {
    return namesOnly(parseCaptureRecord(key, bytes), forgotten);
  } catch {
    return false;
  }
}
