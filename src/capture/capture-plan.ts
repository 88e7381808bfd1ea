import type { ArtifactType } from '../vocab/index.js';
import type { InspectedArtifact, PresentArtifact } from './target.js';

/** What capture will do with each artifact. Deciding is pure; writing is apply.ts. */
export type PlannedArtifact =
  | { action: 'absent'; artifact: ArtifactType; path: string }
  | { action: 'error'; artifact: ArtifactType; path: string; error: string }
  | { action: 'unchanged'; item: PresentArtifact }
  | { action: 'store'; item: PresentArtifact }
  /** Its invocation was forgotten: filing it again would undo `forget`. */
  | { action: 'forgotten'; item: PresentArtifact };

export interface CapturePlan {
  artifacts: PlannedArtifact[];
  /** True when nothing new would be written: no record, no object. */
  nothingNew: boolean;
}

/**
 * `archived(invocationId, artifact, sha)` answers whether that exact record exists; an artifact
 * whose record exists is unchanged, whatever else the archive holds.
 */
export function planCapture(inspected: InspectedArtifact[], archived: (item: PresentArtifact) => boolean): CapturePlan {
  const artifacts = inspected.map((item): PlannedArtifact => {
    switch (item.state) {
      case 'absent':
        return { action: 'absent', artifact: item.artifact, path: item.path };
      case 'error':
        return { action: 'error', artifact: item.artifact, path: item.path, error: item.error };
      case 'present':
        return archived(item) ? { action: 'unchanged', item } : { action: 'store', item };
    }
  });
  return { artifacts, nothingNew: !artifacts.some((a) => a.action === 'store') };
}

/** The plan with what it would store of a forgotten invocation set aside; asks only when something would be stored. */
export async function setAsideForgotten(plan: CapturePlan, isForgotten: (invocationId: string) => Promise<boolean>): Promise<CapturePlan> {
  if (plan.nothingNew) return plan;
  const artifacts: PlannedArtifact[] = [];
  for (const p of plan.artifacts) artifacts.push(p.action === 'store' && (await isForgotten(p.item.invocationId)) ? { action: 'forgotten', item: p.item } : p);
  return { artifacts, nothingNew: !artifacts.some((a) => a.action === 'store') };
}

/** The invocation whose manifest the plan files, if it files one (a target/ holds one manifest). */
export function filedManifestInvocation(plan: CapturePlan): string | null {
  for (const p of plan.artifacts) if (p.action === 'store' && p.item.artifact === 'manifest') return p.item.invocationId;
  return null;
}
