import type { Backend } from './backend.js';
import { withWriterLease } from './prune-guard.js';
import { advanceBranch, listBranches, type Branch } from './branches.js';
import { putJournalEntry } from './journal.js';
import { CAPTURE_RECORDS_PREFIX, captureRecordKey, fileKey, INVOCATION_RECORDS_PREFIX, refKey } from './layout.js';
import { namedInvocations, namesOnly, replayForget } from './forget-records.js';
import {
  checkFileIndexes,
  copyBlob,
  readArtifactRecords,
  readCaptureRecords,
  SourceDamage,
  type DamagedInSource,
  type SourceCapture,
  type SourceRecord,
} from './transfer-source.js';
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
 * forgot is copied, so a forget is never undone by a copy. Damage in the source leaves out what
 * it touches, and only that (transfer-source.ts): the copy goes on and reports it.
 */
export interface TransferReport {
  /** Forgets the source had made and the target had not, made there. */
  forgets: number;
  artifactRecords: number;
  captures: number;
  objects: number;
  branches: { name: string; outcome: 'created' | 'advanced' | 'same' | 'behind' | 'diverged'; source: string | null; target: string | null }[];
  /** What was left out because the source's copy of it is damaged (transfer-source.ts). */
  damaged: DamagedInSource[];
}

export type TransferProgress = (done: number, total: number) => void;

export async function transferArchive(from: Backend, to: Backend, onProgress?: TransferProgress, now = new Date()): Promise<TransferReport> {
  // The receiving side is written like a capture writes: under a lease a prune respects.
  return withWriterLease(to, (guarded) => transferGuarded(from, guarded, onProgress, now));
}

async function transferGuarded(from: Backend, to: Backend, onProgress: TransferProgress | undefined, now: Date): Promise<TransferReport> {
  const forgets = await replayForgets(from, to, now);
  const forgotten = await forgottenInvocations(to);
  const damage = new SourceDamage();
  const [artifactKeys, allCaptureKeys] = await Promise.all([missingKeys(from, to, INVOCATION_RECORDS_PREFIX), missingKeys(from, to, CAPTURE_RECORDS_PREFIX)]);
  const wanted = (await readArtifactRecords(from, artifactKeys, damage)).filter(({ record }) => !forgotten.has(record.invocation_id));
  await checkFileIndexes(from, wanted, damage);
  const captures = (await readCaptureRecords(from, allCaptureKeys, damage)).filter((c) => !namesOnly(c.capture, forgotten));
  const intact = (): { records: SourceRecord[]; captures: SourceCapture[] } => ({
    records: wanted.filter(({ record }) => !damage.has(record.invocation_id)),
    captures: captures.filter((c) => !namedInvocations(c.capture).some((id) => damage.has(id))),
  });
  const planned = intact();
  if (planned.records.length + planned.captures.length > 0) {
    await putJournalEntry(to, {
      journal_id: newTimeId(now),
      captures: planned.captures.map((c) => decodeURIComponent(c.key.slice(CAPTURE_RECORDS_PREFIX.length, -'.json'.length))),
      artifact_records: planned.records.map(({ record: r }) => ({ invocation_id: r.invocation_id, artifact: r.artifact, sha256: r.sha256 })),
    });
  }
  const tick = progressOf(planned.records.length + planned.captures.length, onProgress);
  const copied = await copyInvocations(from, to, planned.records, damage, tick);
  // Damage found in a chunk while copying leaves out the captures naming that invocation too.
  const copiedCaptures = intact().captures;
  await forEachLimited(copiedCaptures, 8, async ({ key, bytes }) => {
    await to.putIfAbsent(key, bytes);
    tick();
  });
  const branches = await mergeBranches(from, to, new Set(copiedCaptures.map((c) => c.key)), now);
  return { forgets, artifactRecords: copied.records, captures: copiedCaptures.length, objects: copied.objects, branches, damaged: damage.list() };
}

/**
 * Each invocation's objects, then its records, an invocation at a time: one whose chunk turns
 * out damaged gets no record here (its objects already copied are garbage for prune).
 */
async function copyInvocations(
  from: Backend,
  to: Backend,
  records: readonly SourceRecord[],
  damage: SourceDamage,
  tick: () => void,
): Promise<{ objects: number; records: number }> {
  let objects = 0;
  let written = 0;
  for (const group of byInvocation(records)) {
    let at = group[0]!.record;
    try {
      for (const { record } of group) {
        at = record;
        objects += await copyBlob(from, to, record.sha256);
      }
    } catch (error) {
      damage.add(at.invocation_id, fileKey(at.sha256), error);
      group.forEach(tick);
      continue;
    }
    for (const { key, bytes } of group) {
      await to.putIfAbsent(key, bytes);
      tick();
    }
    written += group.length;
  }
  return { objects, records: written };
}

function byInvocation(records: readonly SourceRecord[]): SourceRecord[][] {
  const groups = new Map<string, SourceRecord[]>();
  for (const r of records) groups.set(r.record.invocation_id, [...(groups.get(r.record.invocation_id) ?? []), r]);
  return [...groups.values()];
}

function progressOf(total: number, onProgress: TransferProgress | undefined): () => void {
  let done = 0;
  return () => onProgress?.(++done, total);
}

/** Makes here the forgets the source made that this archive lacks, oldest first. */
async function replayForgets(from: Backend, to: Backend, now: Date): Promise<number> {
  const missing = await missingKeys(from, to, FORGOTTEN_PREFIX);
  const records = await readForgetRecords(from, missing);
  for (const record of records) await replayForget(to, record, now);
  return records.length;
}

async function missingKeys(from: Backend, to: Backend, prefix: string): Promise<string[]> {
  const [source, target] = await Promise.all([from.list(prefix), to.list(prefix)]);
  const present = new Set(target.map((k) => k.key));
  return source
    .map((k) => k.key)
    .filter((key) => key.endsWith('.json') && !present.has(key))
    .sort();
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
async function mergeBranch(
  from: Backend,
  to: Backend,
  branch: Branch,
  there: Branch | undefined,
  copied: Set<string>,
  now: Date,
): Promise<TransferReport['branches'][number]['outcome']> {
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
