import {
  advanceBranch,
  headInvocation,
  putArtifactRecord,
  putBlob,
  repairArtifactRecord,
  repairBlob,
  putCaptureRecord,
  putJournalEntry,
  type ArtifactRecord,
  type Backend,
  type CapturedArtifact,
  type CapturedOutput,
  type CaptureRecord,
  type RunInfo,
} from '../archive/index.js';
import { isAtticError } from '../errors.js';
import type { CapturePhase, RunResultsSummary } from '../vocab/index.js';
import type { CheckedArtifact, CheckedPlan } from './checked-plan.js';
import type { PresentArtifact } from './target.js';

export interface CaptureMeta {
  captureId: string;
  phase: CapturePhase;
  capturedAt: Date;
  toolVersion: string;
  /**
   * Where the capture was taken (git, CI) and the branch to file it on: only the capture record
   * needs them, so they are read beside the writes (git's processes run on the other core).
   */
  described: Promise<CaptureDescription>;
  run: RunInfo | null;
  /** Outputs already filed (outputs.ts), listed in the capture record. */
  outputs?: CapturedOutput[];
}

export interface CaptureDescription {
  branch: string | null;
  context: Record<string, unknown>;
}

/** Bytes of artifacts stored so far, of the total to store: for a progress line on a terminal. */
export type UploadProgress = (done: number, total: number) => void;

/**
 * Writes what the plan says, in the order that keeps the archive consistent at every instant:
 * chunks, then the file index, then the artifact record, then the capture record. A process
 * killed at any point leaves only unreferenced objects, which the next capture reuses.
 */
export async function applyCapture(backend: Backend, plan: CheckedPlan, meta: CaptureMeta, onProgress?: UploadProgress): Promise<CaptureRecord> {
  const storing = plan.artifacts.flatMap((p) => (p.action === 'store' ? [p.item] : []));
  // First, the journal entry naming what follows (journal.ts): readers of object storage find
  // new records through it, even those of a capture killed before its capture record.
  if (storing.length > 0 || meta.run) {
    await putJournalEntry(backend, {
      journal_id: meta.captureId,
      captures: [meta.captureId],
      artifact_records: storing.map((item) => ({ invocation_id: item.invocationId, artifact: item.artifact, sha256: item.sha256 })),
    });
  }
  // Smallest first: when the disk fills up, the most artifacts have fit before it did.
  const artifacts: CapturedArtifact[] = new Array(plan.artifacts.length);
  const total = storing.reduce((sum, item) => sum + item.size, 0);
  let done = 0;
  const onChunk = onProgress && ((length: number) => onProgress((done += length), total));
  for (const i of bySize(plan.artifacts)) artifacts[i] = await applyArtifact(backend, plan.artifacts[i]!, meta, onChunk);
  const { branch, context } = await meta.described;
  const record: CaptureRecord = {
    kind: 'capture',
    format: 1,
    capture_id: meta.captureId,
    phase: meta.phase,
    captured_at: meta.capturedAt.toISOString(),
    tool_version: meta.toolVersion,
    branch,
    context,
    run: meta.run,
    artifacts,
    ...(meta.outputs && meta.outputs.length > 0 ? { outputs: meta.outputs } : {}),
  };
  // A capture that found nothing new leaves no trace, so capturing an unchanged target/ stores
  // nothing; a `run` is always recorded, since its command and exit code are news.
  const captured = artifacts.filter((a) => a.status === 'captured');
  const outputsNew = (meta.outputs ?? []).some((o) => o.status === 'captured');
  const repaired = artifacts.some((a) => a.status === 'repaired');
  if (captured.length > 0 || outputsNew || repaired || meta.run) await putCaptureRecord(backend, record);
  const head = headInvocation(captured);
  if (head && branch) await advanceBranch(backend, branch, meta.captureId, head, meta.capturedAt);
  return record;
}

function bySize(planned: readonly CheckedArtifact[]): number[] {
  const size = (p: CheckedArtifact): number => ('item' in p ? p.item.size : 0);
  return planned.map((_, i) => i).sort((a, b) => size(planned[a]!) - size(planned[b]!) || a - b);
}

async function applyArtifact(backend: Backend, planned: CheckedArtifact, meta: CaptureMeta, onChunk?: (length: number) => void): Promise<CapturedArtifact> {
  switch (planned.action) {
    case 'absent':
      return { artifact: planned.artifact, status: 'absent', path: planned.path, invocation_id: null, sha256: null, size: null, stored_bytes: 0 };
    case 'error':
      return errorEntry(planned.artifact, planned.path, planned.error);
    case 'unchanged':
      return planned.item.bytes ? repairArtifact(backend, planned.item, planned.item.bytes, meta) : entry(planned.item, 'unchanged', 0);
    case 'store':
      return storeArtifact(backend, planned.item, meta, onChunk);
    case 'forgotten':
      return entry(planned.item, 'forgotten', 0);
  }
}

async function storeArtifact(
  backend: Backend,
  item: PresentArtifact & { bytes: Buffer },
  meta: CaptureMeta,
  onChunk?: (length: number) => void,
): Promise<CapturedArtifact> {
  const bytes = item.bytes;
  try {
    const put = await putBlob(backend, bytes, item.sha256, onChunk);
    const wrote = await putArtifactRecord(backend, artifactRecordOf(item, meta, await summaryOf(item, bytes)));
    // Another capture may have filed the same record a moment ago: then ours is unchanged.
    return entry(item, wrote ? 'captured' : 'unchanged', put.storedBytes);
  } catch (error) {
    // A full disk stops this artifact, not the capture: what was written stays, a smaller
    // artifact after it may still fit, and the capture record says what happened.
    if (isAtticError(error) && (error.code === 'no-space' || error.code === 'read-only')) return errorEntry(item.artifact, item.path, error.message);
    throw error;
  }
}

/**
 * An artifact the archive already records, whose bytes capture read anyway: whatever of it is
 * missing or damaged in the archive (chunks, file index, record) is written again, so capturing
 * the intact original repairs it.
 */
async function repairArtifact(backend: Backend, item: PresentArtifact, bytes: Buffer, meta: CaptureMeta): Promise<CapturedArtifact> {
  const objects = await repairBlob(backend, bytes, item.sha256);
  const record = await repairArtifactRecord(backend, artifactRecordOf(item, meta, await summaryOf(item, bytes)));
  return entry(item, objects > 0 || record ? 'repaired' : 'unchanged', 0);
}

/**
 * Run results are summarised as they are filed, so `state` and retention judge a run from its
 * record alone. The extract layer is loaded only then: a capture that stores no run results
 * pays nothing for it. Results that cannot be summarised are filed without a summary; readers
 * then read the bytes, as they do for records of older versions.
 */
async function summaryOf(item: PresentArtifact, bytes: Buffer): Promise<RunResultsSummary | undefined> {
  if (item.artifact !== 'run_results') return undefined;
  const { summarizeRunResults } = await import('../extract/summarize-run-results.js');
  try {
    return summarizeRunResults(bytes, item.invocationId);
  } catch {
    return undefined;
  }
}

function artifactRecordOf(item: PresentArtifact, meta: CaptureMeta, summary: RunResultsSummary | undefined): ArtifactRecord {
  return {
    kind: 'artifact',
    format: 1,
    invocation_id: item.invocationId,
    invocation_id_source: item.invocationIdSource,
    artifact: item.artifact,
    sha256: item.sha256,
    size: item.size,
    dbt_schema_version: item.header.dbtSchemaVersion,
    dbt_version: item.header.dbtVersion,
    generated_at: item.header.generatedAt,
    captured_at: meta.capturedAt.toISOString(),
    capture_id: meta.captureId,
    phase: meta.phase,
    ...(summary ? { summary } : {}),
  };
}

function entry(item: PresentArtifact, status: 'captured' | 'unchanged' | 'repaired' | 'forgotten', storedBytes: number): CapturedArtifact {
  return {
    artifact: item.artifact,
    status,
    path: item.path,
    invocation_id: item.invocationId,
    sha256: item.sha256,
    size: item.size,
    stored_bytes: storedBytes,
  };
}

function errorEntry(artifact: CapturedArtifact['artifact'], path: string, error: string): CapturedArtifact {
  return { artifact, status: 'error', path, invocation_id: null, sha256: null, size: null, stored_bytes: 0, error };
}
