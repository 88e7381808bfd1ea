import { existsSync } from 'node:fs';
import { hasArtifactRecord, type Backend, type CaptureRecord, type RunInfo } from '../archive/index.js';
import { AtticError } from '../errors.js';
import { newTimeId, type ArtifactType, type CapturePhase } from '../vocab/index.js';
import { applyCapture } from './apply.js';
import { planCapture, type CapturePlan } from './plan.js';
import { inspectTarget, type PresentArtifact } from './target.js';

export interface CaptureOptions {
  targetDir: string;
  artifacts: readonly ArtifactType[];
  phase: CapturePhase;
  toolVersion: string;
  branch: string | null;
  context?: Record<string, unknown>;
  run?: RunInfo | null;
  dryRun?: boolean;
  now?: Date;
}

export interface CaptureOutcome {
  plan: CapturePlan;
  record: CaptureRecord | null;
}

/** Snapshots target/ into the archive: inspect, plan, then (unless a dry run) apply. */
export async function captureTarget(backend: Backend, options: CaptureOptions): Promise<CaptureOutcome> {
  if (!existsSync(options.targetDir) && !options.run) {
    throw new AtticError('target-not-found', `No target directory at ${options.targetDir}. Run dbt first, or pass --target-path.`);
  }
  const inspected = await inspectTarget(options.targetDir, options.artifacts);
  const archived = await archivedSet(backend, inspected.filter((a): a is PresentArtifact => a.state === 'present'));
  const plan = planCapture(inspected, (item) => archived.has(item));
  if (options.dryRun) return { plan, record: null };
  const capturedAt = options.now ?? new Date();
  const record = await applyCapture(backend, plan, {
    captureId: newTimeId(capturedAt),
    phase: options.phase,
    capturedAt,
    toolVersion: options.toolVersion,
    branch: options.branch,
    context: options.context ?? {},
    run: options.run ?? null,
  });
  return { plan, record };
}

async function archivedSet(backend: Backend, present: PresentArtifact[]): Promise<Set<PresentArtifact>> {
  const found = new Set<PresentArtifact>();
  for (const item of present) {
    if (await hasArtifactRecord(backend, item.invocationId, item.artifact, item.sha256)) found.add(item);
  }
  return found;
}
