import { AtticError, isAtticError } from '../errors.js';
import { checkComplete } from './artifact-header.js';
import type { CapturePlan, PlannedArtifact } from './capture-plan.js';
import { readRegularFileHashed } from './regular-file.js';
import { unknownInvocation, type PresentArtifact } from './target.js';

/**
 * The plan with every artifact it stores read whole and checked to be complete JSON, before
 * anything is written: one that is not (dbt was killed mid-write, or is writing it now) is an
 * error, and leaves no trace in the archive, not even a journal entry naming it. Its header was
 * readable, so its invocation id is not to be trusted either: a semantic manifest filed under it
 * is left out too.
 */
export async function checkPlan(plan: CapturePlan): Promise<CheckedPlan> {
  const artifacts: CheckedArtifact[] = [];
  for (const planned of plan.artifacts) artifacts.push(planned.action === 'store' ? await checkStored(planned.item) : planned);
  const manifestRefused = artifacts.some((p) => p.action === 'error' && p.artifact === 'manifest');
  const checked = artifacts.map((p) => (manifestRefused && p.action === 'store' && p.item.invocationIdSource === 'manifest' ? orphaned(p.item) : p));
  return { artifacts: checked, nothingNew: !checked.some((a) => a.action === 'store') };
}

/** An artifact to store, its bytes read and checked. */
export type CheckedArtifact = Exclude<PlannedArtifact, { action: 'store' }> | { action: 'store'; item: PresentArtifact & { bytes: Buffer } };

export interface CheckedPlan extends CapturePlan {
  artifacts: CheckedArtifact[];
}

async function checkStored(item: PresentArtifact): Promise<CheckedArtifact> {
  try {
    const bytes = item.bytes ?? (await readVouchedFile(item));
    checkComplete(bytes);
    return { action: 'store', item: { ...item, bytes } };
  } catch (error) {
    if (!isAtticError(error)) throw error;
    return { action: 'error', artifact: item.artifact, path: item.path, error: error.message };
  }
}

function orphaned(item: PresentArtifact): CheckedArtifact {
  return { action: 'error', artifact: item.artifact, path: item.path, error: unknownInvocation('the manifest.json beside it cannot be read') };
}

/** The stat cache vouched for this file, but it must be stored: read it, and check it still is what was vouched for. */
async function readVouchedFile(item: PresentArtifact): Promise<Buffer> {
  const { bytes, sha256 } = await readRegularFileHashed(item.path).catch((error: unknown) => {
    if (isAtticError(error)) throw error;
    throw new AtticError('artifact-unreadable', `it cannot be read (${(error as { code?: string }).code ?? String(error)})`);
  });
  if (sha256 !== item.sha256) throw new AtticError('artifact-unreadable', 'it changed while it was being captured; capture again');
  return bytes;
}
