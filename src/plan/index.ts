/**
 * Plan: which nodes of the current manifest can safely be reused and which must build, decided
 * from the history alone (nothing is sent anywhere). Terms:
 * - build: a result of a command that builds or tests; success: `success` or `pass`.
 * - verdict: reuse or build; a build has one reason, the first in BUILD_REASONS that applies.
 * - checks: each comparison between a node's last successful build (old) and now (new).
 * Reading facts is the store's (readPlanFacts); deciding is pure (decidePlan); makePlan
 * composes them and records the plan in the archive.
 */
export { makePlan, type PlanOptions } from './make-plan.js';
export { decidePlan, type DecideOptions } from './decide.js';
export { assemblePlan, countVerdicts, selectorWords } from './assemble.js';
export { parseSelectors } from './select.js';
export type { PlannedFrom } from './notices.js';
export { BUILD_REASONS, type BuildReason, type Check, type NodeVerdict, type PlanNotice, type PlanResult, type Verdict } from './types.js';
