import { applyForget, beginForget, type Backend, type ForgetOutcome, type WaitNote } from '../archive/index.js';
import { planForget, type ForgetPlan } from './decide.js';
import { readRetentionFacts } from './facts.js';
import type { KeepPolicy } from './policy.js';
import { handoutWindowMs } from './window.js';

/** Reads the facts and decides: what `forget` would do now under `policy`. */
export async function evaluatePolicy(backend: Backend, policy: KeepPolicy, options: { now: Date; branch?: string }): Promise<ForgetPlan> {
  const facts = await readRetentionFacts(backend, { now: options.now, handoutWindowMs: handoutWindowMs(policy) });
  return planForget(facts, policy, options.branch);
}

/**
 * Forgets what `policy` says now: marked (archive/prune-guard.ts) before the facts are read, so
 * a branch created meanwhile is either seen, its base kept, or made after, from what is left.
 */
export async function forgetByPolicy(
  backend: Backend,
  policy: KeepPolicy,
  options: { now: Date; branch?: string; describe: string; onWait?: WaitNote },
): Promise<{ plan: ForgetPlan; outcome: ForgetOutcome }> {
  const release = await beginForget(backend, options.onWait);
  try {
    const plan = await evaluatePolicy(backend, policy, options);
    return { plan, outcome: await applyForget(backend, plan.forget, options.describe, options.now) };
  } finally {
    await release();
  }
}
