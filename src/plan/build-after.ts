import type { BuildAfter } from '../store/index.js';
import { isoFromMicros, periodMicros } from './time.js';
import type { BuildReason, Check } from './types.js';

/** Reasons that say an input changed: the ones dbt's `build_after` may hold back. */
export const INPUT_REASONS: ReadonlySet<BuildReason> = new Set(['upstream will build', 'upstream built since', 'source data newer', 'freshness unknown']);

export interface BuildAfterInputs {
  config: BuildAfter;
  builtAtUs: number | null;
  nowUs: number | null;
  /** Inputs (upstream nodes and sources) that changed, and how many there are. */
  changedInputs: number;
  totalInputs: number;
}

/**
 * dbt's `config.freshness.build_after` (1.10+): a model whose inputs changed is not rebuilt
 * until count × period has passed since its last build, nor, with `updates_on: all`, until
 * every input has changed. ok = the node may still be reused. A config dbt would not accept (no
 * count, an unknown period) is ignored: returns null. An unknown time is never within.
 */
export function checkBuildAfter(inputs: BuildAfterInputs): Check | null {
  const window = periodMicros(inputs.config.count, inputs.config.period);
  if (window === null) return null;
  const rule = `${inputs.config.count} ${inputs.config.period}${inputs.config.updatesOn ? `, updates_on ${inputs.config.updatesOn}` : ''}`;
  const old = `built ${isoFromMicros(inputs.builtAtUs) ?? 'at an unknown time'}`;
  if (inputs.builtAtUs === null || inputs.nowUs === null) return { check: 'build_after', old, new: `${rule}; time unknown`, ok: false, reason: null };
  const elapsed = inputs.nowUs - inputs.builtAtUs;
  const hours = (elapsed / 3600e6).toFixed(2);
  if (elapsed < window) return { check: 'build_after', old, new: `${rule}; ${hours} h since`, ok: true, reason: null };
  if (inputs.config.updatesOn === 'all' && inputs.changedInputs < inputs.totalInputs) {
    return { check: 'build_after', old, new: `${rule}; ${inputs.changedInputs} of ${inputs.totalInputs} inputs changed`, ok: true, reason: null };
  }
  return { check: 'build_after', old, new: `${rule}; ${hours} h since`, ok: false, reason: null };
}
