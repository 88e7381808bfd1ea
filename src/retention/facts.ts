import { invocationsPlannedSince, listBranches, listCaptureRecords, listHandoutsSince, type Backend, type CaptureRecord } from '../archive/index.js';
import { DEPLOY_COMMANDS, isSuccess, listArchivedInvocations, readRunSummary } from '../state/index.js';
import { mapLimited, parseInstant } from '../vocab/index.js';

/**
 * What retention needs to know of each invocation, read from the archive alone: when dbt ran
 * it (its own time, never when it was captured), its line (branch of the capture that first
 * filed it, and target), and whether it is a success `state --last-success` could choose.
 */
export interface InvocationFacts {
  id: string;
  /** dbt's time: run_results' generated_at, else its newest artifact's. */
  ranAt: string;
  ranAtMs: number;
  branch: string | null;
  target: string | null;
  /** A deploying command whose results are all good, with a manifest: a slim CI baseline. */
  success: boolean;
}

/** Why an invocation must stay whatever the policy says. */
export type Protection = 'branch head' | 'branch base' | 'handed out' | 'newest success';

export interface RetentionFacts {
  invocations: InvocationFacts[];
  /** Invocation id → what protects it, besides the newest success (derived from the facts). */
  protectedBy: Map<string, Protection[]>;
}

export async function readRetentionFacts(backend: Backend, options: { now: Date; handoutWindowMs: number }): Promise<RetentionFacts> {
  const [archived, captures] = await Promise.all([listArchivedInvocations(backend), listCaptureRecords(backend)]);
  const branchOf = firstBranches(captures);
  const invocations = await mapLimited(archived, 16, async (inv): Promise<InvocationFacts> => {
    const summary = inv.artifacts.run_results ? await readRunSummary(backend, inv.artifacts.run_results).catch(() => null) : null;
    const nanos = parseInstant(inv.generatedAt);
    return {
      id: inv.invocationId,
      ranAt: inv.generatedAt,
      ranAtMs: nanos === null ? 0 : Number(nanos / 1_000_000n),
      branch: branchOf.get(inv.invocationId) ?? null,
      target: summary?.target ?? null,
      success: Boolean(inv.artifacts.manifest && summary && isSuccess(summary) && DEPLOY_COMMANDS.includes(summary.command ?? '')),
    };
  });
  return { invocations, protectedBy: await readProtections(backend, options) };
}

/** An invocation is on the branch of the capture that first filed its artifacts (as `state` reads it). */
function firstBranches(captures: readonly CaptureRecord[]): Map<string, string | null> {
  const branchOf = new Map<string, string | null>();
  for (const capture of captures) {
    for (const a of capture.artifacts) {
      if (a.status === 'captured' && a.invocation_id && !branchOf.has(a.invocation_id)) branchOf.set(a.invocation_id, capture.branch);
    }
  }
  return branchOf;
}

async function readProtections(backend: Backend, options: { now: Date; handoutWindowMs: number }): Promise<Map<string, Protection[]>> {
  const protectedBy = new Map<string, Protection[]>();
  const add = (id: string | null | undefined, why: Protection): void => {
    if (id && !protectedBy.get(id)?.includes(why)) protectedBy.set(id, [...(protectedBy.get(id) ?? []), why]);
  };
  for (const branch of await listBranches(backend)) {
    add(branch.head_invocation_id, 'branch head');
    add(branch.base?.invocation_id, 'branch base');
  }
  const since = options.now.getTime() - options.handoutWindowMs;
  for (const handout of await listHandoutsSince(backend, since)) add(handout.invocation_id, 'handed out');
  for (const id of await invocationsPlannedSince(backend, since)) add(id, 'handed out');
  return protectedBy;
}
