import type { KeepPolicy } from './policy.js';

/** Handouts protect for the policy's keep-within, or a week when it has none: jobs that deferred to a run finish long before. */
export const DEFAULT_HANDOUT_WINDOW_MS = 7 * 86_400_000;

export function handoutWindowMs(policy: KeepPolicy): number {
  return policy.withinMs > 0 ? policy.withinMs : DEFAULT_HANDOUT_WINDOW_MS;
}
