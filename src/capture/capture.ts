import { existsSync, statSync } from 'node:fs';
import { checkBranchName, forgottenCheck, hasArtifactRecord, withWriterLease, type Backend, type CaptureRecord, type RunInfo } from '../archive/index.js';
import { AtticError } from '../errors.js';
import { newTimeId, type ArtifactType, type CapturePhase } from '../vocab/index.js';
import { applyCapture, type CaptureDescription } from './apply.js';
import { planCapture, setAsideForgotten, type CapturePlan } from './capture-plan.js';
import { checkPlan } from './checked-plan.js';
import { attributeOutputs } from './attribution.js';
import { captureOutputs, type OutputOptions } from './outputs.js';
import { StatCache } from './stat-cache.js';
import { inspectTarget, type InspectedArtifact, type PresentArtifact } from './target.js';

export interface CaptureOptions {
  targetDir: string;
  artifacts: readonly ArtifactType[];
  phase: CapturePhase;
  toolVersion: string;
  /**
   * Taken only when something will be written: an unchanged target/ costs no git call. `ranAt`:
   * when the artifacts to store say dbt ran (the earliest), for a context taken after it.
   */
  context?: (ranAt: Date | null) => Promise<Record<string, unknown>>;
  /** The branch to file on when none is configured: the git branch of the context. */
  branch: string | null;
  run?: RunInfo | null;
  dryRun?: boolean;
  now?: Date;
  /** Where to remember file identities and hashes between captures (stat-cache.ts); none: hash everything. */
  statCacheFile?: string;
  /**
   * Remember which records are archived, and do not ask again: for a remote archive, where
   * each question is a request (an unchanged target/ then costs one request, not six).
   */
  rememberArchived?: boolean;
  /** What dbt wrote besides artifacts, to capture too (outputs.ts); none: artifacts only. */
  outputs?: Omit<OutputOptions, 'targetDir'>;
  /** Bytes stored so far of the total (a progress line on a terminal, for long uploads). */
  onProgress?: (done: number, total: number) => void;
  /** Told when the capture waits for a prune that is deleting objects. */
  onWait?: (what: string) => void;
  /** Told once, before anything is written, when something will be: not told by a dry run or an unchanged target/. */
  onWriting?: (plan: CapturePlan) => void;
}

export interface CaptureOutcome {
  plan: CapturePlan;
  record: CaptureRecord | null;
}

/** Snapshots target/ into the archive: inspect, plan, then (unless a dry run) apply. */
export async function captureTarget(backend: Backend, options: CaptureOptions): Promise<CaptureOutcome> {
  // A lease from the first look at an object to the last record (archive/prune-guard.ts): a
  // prune at work never deletes what this capture reuses.
  return withWriterLease(backend, (guarded) => captureGuarded(guarded, options), options.onWait);
}

async function captureGuarded(backend: Backend, options: CaptureOptions): Promise<CaptureOutcome> {
  // Before a dbt command (the shell wrapper, `run`), a project that never ran dbt has no target/ yet.
  if (!existsSync(options.targetDir) && !options.run && options.phase !== 'pre') {
    throw new AtticError('target-not-found', `No target directory at ${options.targetDir}. Run dbt first, or pass --target-path.`);
  }
  if (existsSync(options.targetDir) && !statSync(options.targetDir).isDirectory()) {
    throw new AtticError(
      'target-not-found',
      `${options.targetDir} is not a directory, so there are no artifacts to capture. Point --target-path at dbt's target directory.`,
    );
  }
  if (options.branch) checkBranchName(options.branch);
  const cache = options.statCacheFile ? await StatCache.load(options.statCacheFile) : undefined;
  const inspected = await inspectTarget(options.targetDir, options.artifacts, cache);
  const known = options.rememberArchived ? cache : undefined;
  const archived = await archivedSet(
    backend,
    inspected.filter((a): a is PresentArtifact => a.state === 'present'),
    known,
  );
  const isForgotten = forgottenAmong(backend, inspected);
  const plan = await checkPlan(
    await setAsideForgotten(
      planCapture(inspected, (item) => archived.has(item)),
      isForgotten,
    ),
  );
  if (options.dryRun) return { plan, record: null };
  const capturedAt = options.now ?? new Date();
  const captureId = newTimeId(capturedAt);
  // Only artifacts known whole say whose the SQL and logs are: a truncated one's header may name an invocation long gone.
  const present = plan.artifacts.flatMap((p) => ('item' in p ? [p.item] : []));
  const outputs = options.outputs
    ? await captureOutputs(backend, attributeOutputs(present, options.run ?? null), { ...options.outputs, targetDir: options.targetDir }, cache, {
        captureId,
        capturedAt,
        phase: options.phase,
        isForgotten,
      })
    : [];
  await cache?.save();
  const outputsNew = outputs.some((o) => o.status === 'captured');
  const writing = !plan.nothingNew || outputsNew || options.run;
  if (writing) options.onWriting?.(plan);
  const described = writing ? describeCapture(options, ranAtOf(plan)) : Promise.resolve({ branch: options.branch, context: {} });
  // Awaited after the artifacts are written; until then a failure must not go unhandled.
  described.catch(() => undefined);
  const record = await applyCapture(
    backend,
    plan,
    {
      captureId,
      outputs,
      phase: options.phase,
      capturedAt,
      toolVersion: options.toolVersion,
      described,
      run: options.run ?? null,
    },
    options.onProgress,
  );
  if (known) {
    for (const a of record.artifacts)
      if (a.invocation_id && a.sha256 && (a.status === 'captured' || a.status === 'unchanged'))
        known.markArchived(recordName(a.invocation_id, a.artifact, a.sha256));
    await known.save();
  }
  return { plan, record };
}

/** Whether `forget` forgot an invocation, told when the artifacts in target/ say it ran (a dbt.log slice of another: unknown). */
function forgottenAmong(backend: Backend, inspected: readonly InspectedArtifact[]): (invocationId: string) => Promise<boolean> {
  const check = forgottenCheck(backend);
  const ranAt = new Map<string, Date>();
  for (const a of inspected) {
    if (a.state !== 'present' || !a.header.generatedAt) continue;
    const at = new Date(a.header.generatedAt);
    const held = ranAt.get(a.invocationId);
    // The earliest of its artifacts: a forget during a long run may have seen its manifest.
    if (!Number.isNaN(at.getTime()) && (!held || at < held)) ranAt.set(a.invocationId, at);
  }
  return (invocationId) => check(invocationId, ranAt.get(invocationId) ?? null);
}

function recordName(invocationId: string, artifact: string, sha: string): string {
  return `${invocationId}/${artifact}/${sha}`;
}

async function archivedSet(backend: Backend, present: PresentArtifact[], known?: StatCache): Promise<Set<PresentArtifact>> {
  const found = new Set<PresentArtifact>();
  for (const item of present) {
    if (
      known?.isArchived(recordName(item.invocationId, item.artifact, item.sha256)) ||
      (await hasArtifactRecord(backend, item.invocationId, item.artifact, item.sha256))
    )
      found.add(item);
  }
  return found;
}

/** The earliest generated_at of what the plan stores: dbt writes the manifest as it starts. */
function ranAtOf(plan: CapturePlan): Date | null {
  const times = plan.artifacts
    .flatMap((p) => (p.action === 'store' && p.item.header.generatedAt ? [Date.parse(p.item.header.generatedAt)] : []))
    .filter(Number.isFinite);
  return times.length > 0 ? new Date(Math.min(...times)) : null;
}

async function describeCapture(options: CaptureOptions, ranAt: Date | null): Promise<CaptureDescription> {
  const context = (await options.context?.(ranAt)) ?? {};
  return { context, branch: options.branch ?? branchOf(context) };
}

/** The git branch, when it makes a usable branch name (git allows a few names we do not). */
function branchOf(context: Record<string, unknown>): string | null {
  const git = context.git as { branch?: unknown } | undefined;
  if (typeof git?.branch !== 'string') return null;
  try {
    return checkBranchName(git.branch);
  } catch {
    return null;
  }
}
