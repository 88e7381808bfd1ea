import type { PlanFacts } from '../store/index.js';
import type { Check, NodeVerdict, PlanNotice } from './types.js';
import { BUILD_TIME_UNKNOWN } from './source-check.js';

/** Where the planned manifest came from: the one in target/, or an invocation named. */
export type PlannedFrom = 'target' | 'named';

/** What a reader of the verdicts would otherwise miss. Pure. */
export function planNotices(facts: PlanFacts, all: readonly NodeVerdict[], selected: readonly NodeVerdict[], from: PlannedFrom): PlanNotice[] {
  const notices: PlanNotice[] = [];
  const finished = finishedBuildNotice(facts, from);
  if (finished) notices.push(finished);
  const freshness = freshnessNotice(all, selected);
  if (freshness) notices.push(freshness);
  return notices;
}

/**
 * Right after a build, target/ holds that build's own manifest: planning it plans what has just
 * run, against the history before it ran, so everything it built looks unbuilt.
 */
function finishedBuildNotice(facts: PlanFacts, from: PlannedFrom): PlanNotice | null {
  if (!facts.ownRun) return null;
  const run = `${facts.ownRun.command ? `dbt ${facts.ownRun.command}` : 'a dbt command'} with ${facts.ownRun.results} result${facts.ownRun.results === 1 ? '' : 's'}`;
  const message =
    from === 'target'
      ? `target/ holds a finished build (${run}, invocation ${facts.invocationId}): this plans that build's own manifest against the history before it ran. To plan the next build, run dbt parse, then dbtattic plan.`
      : `Invocation ${facts.invocationId} is a finished build (${run}): this plans its own manifest against the history before it ran.`;
  return { code: 'finished-build', message };
}

/**
 * Nodes that build only for want of a freshness check: each failed check is a source no check
 * proves unchanged, or a parent that builds for that reason alone. A table that declares no
 * input is not among them: no freshness check can speak for it.
 */
function freshnessNotice(all: readonly NodeVerdict[], selected: readonly NodeVerdict[]): PlanNotice | null {
  const held = heldByFreshness(all);
  const chosen = selected.filter((v) => held.has(v.unique_id));
  const direct = chosen.filter((v) => v.checks.some(isUncheckedSource)).length;
  if (direct === 0) return null;
  const downstream = chosen.length - direct;
  const who = `${direct} node${direct === 1 ? '' : 's'} build${direct === 1 ? 's' : ''} only because no freshness check since ${direct === 1 ? 'its' : 'their'} last build proves ${direct === 1 ? 'its' : 'their'} sources unchanged${downstream > 0 ? `, and ${downstream} more only because of ${direct === 1 ? 'it' : 'them'}` : ''}`;
  return {
    code: 'freshness-unknown',
    message: `${who}. Run dbtattic run -- dbt source freshness (or capture the sources.json it writes) before dbt parse, then plan again.`,
  };
}

// A build of unknown time is compared with no check at all: a freshness check would not help it.
const isUncheckedSource = (c: Check): boolean => !c.ok && c.reason === 'freshness unknown' && c.check.startsWith('source ') && c.old !== BUILD_TIME_UNKNOWN;

function heldByFreshness(all: readonly NodeVerdict[]): Set<string> {
  const byId = new Map(all.map((v) => [v.unique_id, v]));
  const memo = new Map<string, boolean>();
  const held = (id: string): boolean => {
    if (memo.has(id)) return memo.get(id)!;
    memo.set(id, false);
    const verdict = byId.get(id);
    const failed = verdict?.verdict === 'build' ? verdict.checks.filter((c) => !c.ok && c.reason !== null) : [];
    const only =
      failed.length > 0 && failed.every((c) => isUncheckedSource(c) || (c.reason === 'upstream will build' && held(c.check.slice('upstream '.length))));
    memo.set(id, only);
    return only;
  };
  return new Set(all.filter((v) => held(v.unique_id)).map((v) => v.unique_id));
}
