import { compareText } from '../vocab/index.js';
import type { InvocationFacts, Protection, RetentionFacts } from './facts.js';
import { applyPolicy, type KeepPolicy, type PolicyReason } from './policy.js';

/**
 * The forget plan: per line of history (branch and target), the policy's union, plus every
 * protected invocation. Pure, so `forget --dry-run` shows exactly what `forget` does.
 */
export type KeepReason = PolicyReason | Protection;

export interface Decision {
  id: string;
  ranAt: string;
  branch: string | null;
  target: string | null;
  keep: boolean;
  /** Why it stays; empty for one forgotten. */
  reasons: KeepReason[];
}

export interface ForgetPlan {
  decisions: Decision[];
  keep: string[];
  forget: string[];
}

/** `branch`: only that branch's lines are decided; every other invocation stays untouched. */
export function planForget(facts: RetentionFacts, policy: KeepPolicy, branch?: string): ForgetPlan {
  const decisions: Decision[] = [];
  for (const line of linesOf(facts.invocations)) {
    if (branch !== undefined && line[0]!.branch !== branch) continue;
    const kept = applyPolicy(line, policy);
    const newestSuccess = line.filter((i) => i.success).sort(newestFirst)[0]?.id;
    for (const inv of line) {
      const reasons: KeepReason[] = [...(kept.get(inv.id) ?? []), ...(facts.protectedBy.get(inv.id) ?? [])];
      if (inv.id === newestSuccess) reasons.push('newest success');
      decisions.push({ id: inv.id, ranAt: inv.ranAt, branch: inv.branch, target: inv.target, keep: reasons.length > 0, reasons });
    }
  }
  decisions.sort(
    (a, b) =>
      compareText(a.branch ?? '', b.branch ?? '') || compareText(a.target ?? '', b.target ?? '') || compareText(b.ranAt, a.ranAt) || compareText(a.id, b.id),
  );
  return { decisions, keep: decisions.filter((d) => d.keep).map((d) => d.id), forget: decisions.filter((d) => !d.keep).map((d) => d.id) };
}

function linesOf(invocations: readonly InvocationFacts[]): InvocationFacts[][] {
  const lines = new Map<string, InvocationFacts[]>();
  for (const inv of invocations) {
    const key = JSON.stringify([inv.branch, inv.target]);
    const line = lines.get(key);
    if (line) line.push(inv);
    else lines.set(key, [inv]);
  }
  return [...lines.values()];
}

function newestFirst(a: InvocationFacts, b: InvocationFacts): number {
  return b.ranAtMs - a.ranAtMs || compareText(b.id, a.id);
}
