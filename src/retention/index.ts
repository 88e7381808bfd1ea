/**
 * Retention: which invocations to keep (`forget`) and which objects nothing needs (`prune`).
 * - keep policy: restic's rules (last, hourly, daily, weekly, monthly, yearly, within), applied
 *   per line of history (branch and target) over each invocation's own run time.
 * - protected: a branch's head and base, an invocation handed out (by `state` or a plan) within
 *   the keep window, the newest success of each line; never forgotten.
 * - forget: removes records, leaving a forget record; prune: deletes unreferenced objects,
 *   safe beside captures at work (archive/prune-guard.ts).
 * Reads and writes the archive only; the store follows at its next sync (store/sync/forgotten.ts).
 */
export { applyPolicy, describePolicy, isEmptyPolicy, periodOf, EMPTY_POLICY, type Dated, type KeepPolicy, type PolicyReason } from './policy.js';
export {
  hasConfiguredPolicy,
  resolvePolicy,
  resolvePruneGrace,
  RETENTION_KEYS,
  DEFAULT_PRUNE_GRACE_MS,
  type KeepFlags,
  type ResolvedPolicy,
} from './policy-config.js';
export { readRetentionFacts, type InvocationFacts, type Protection, type RetentionFacts } from './facts.js';
export { planForget, type Decision, type ForgetPlan, type KeepReason } from './decide.js';
export { applyForget, type ForgetOutcome } from '../archive/index.js';
export { pruneArchive, type PruneOptions, type PruneReport } from './prune.js';
export { predictShrink, type Shrink } from './predict.js';
export { handoutWindowMs } from './window.js';
export { evaluatePolicy, forgetByPolicy } from './evaluate.js';
