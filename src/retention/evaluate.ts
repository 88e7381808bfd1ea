import type { Backend } from '../archive/index.js';
import { planForget, type ForgetPlan } from './decide.js';
import { readRetentionFacts } from './facts.js';
import type { KeepPolicy } from './policy.js';
import { handoutWindowMs } from './window.js';

/** Reads the facts and decides: what `forget` would do now under `policy`. */
export async function evaluatePolicy(backend: Backend, policy: KeepPolicy, options: { now: Date; branch?: string }): Promise<ForgetPlan> {
  const facts = await readRetentionFacts(backend, { now: options.now, handoutWindowMs: handoutWindowMs(policy) });
  return planForget(facts, policy, options.branch);
}
