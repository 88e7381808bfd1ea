import { AtticError } from '../errors.js';
import type { PlanFacts } from '../store/index.js';
import { lineageOf } from './graph.js';
import { planNotices, type PlannedFrom } from './notices.js';
import { applySelection } from './select.js';
import { isoFromMicros } from './time.js';
import type { NodeVerdict, PlanCounts, PlanResult } from './types.js';

export interface PlanRequest {
  deferTo: string | null;
  select: string[];
  exclude: string[];
  from: PlannedFrom;
}

/** The plan as recorded and printed: the selected verdicts, counted. Pure. */
export function assemblePlan(facts: PlanFacts, verdicts: readonly NodeVerdict[], request: PlanRequest, planId: string, madeAt: Date): PlanResult {
  const selected = applySelection(lineageOf(facts.nodes), request.select, request.exclude);
  const words = selectorsOf(facts);
  const nodes = verdicts.filter((v) => selected(v.unique_id)).map((v) => ({ ...v, selector: words.get(v.unique_id) ?? v.name }));
  return {
    format: 1,
    plan_id: planId,
    invocation_id: facts.invocationId,
    made_at: madeAt.toISOString(),
    as_of: isoFromMicros(facts.generatedAtUs),
    target: facts.target,
    branch: facts.branch,
    defer_to: request.deferTo,
    select: request.select,
    exclude: request.exclude,
    counts: countVerdicts(nodes),
    nodes,
    notices: planNotices(facts, verdicts, nodes, request.from),
  };
}

export function countVerdicts(nodes: readonly NodeVerdict[]): PlanCounts {
  const counts: PlanCounts = { reuse: 0, build: 0, by_reason: {} };
  for (const node of nodes) {
    counts[node.verdict] += 1;
    const key =
      node.verdict === 'build'
        ? node.reason
        : node.from_branch
          ? `reuse (from ${node.from_branch})`
          : node.reason === 'unchanged'
            ? 'reuse'
            : `reuse (${node.reason})`;
    counts.by_reason[key] = (counts.by_reason[key] ?? 0) + 1;
  }
  return counts;
}

/**
 * Words for `dbt build --select $(dbtattic plan --format selector)`: one per node, so the
 * shell splits them into separate arguments (a single argument over 128 KB is refused by
 * Linux).
 */
export function selectorWords(plan: PlanResult, verdict: 'build' | 'reuse'): string[] {
  const named = plan.nodes.filter((v) => v.verdict === verdict);
  const unsafe = named.filter((v) => !isOneWord(v.selector));
  if (unsafe.length > 0) throw unnameable(unsafe, verdict);
  return named.map((v) => v.selector);
}

/**
 * A word that reaches dbt as itself: the shell splits an unquoted $(…) on white space and
 * expands `*`, `?` and `[`; dbt's --select splits on spaces, reads `,` as an intersection, `:`
 * as a method and `+` or `@` at either end as graph operators.
 */
function isOneWord(word: string): boolean {
  return !/[\s,:*?[\]]/.test(word) && !/^[+@]|^\d+\+|\+$/.test(word);
}

/** Printing the rest would have dbt build (or skip) other nodes than the plan says: nothing is printed. */
function unnameable(nodes: readonly NodeVerdict[], verdict: 'build' | 'reuse'): AtticError {
  const listed = nodes
    .slice(0, 5)
    .map((v) => `${v.unique_id} ('${v.selector}')`)
    .join(', ');
  return new AtticError(
    'usage',
    `${nodes.length} node${nodes.length === 1 ? '' : 's'} to ${verdict} cannot be named to dbt in one word: ${listed}${nodes.length > 5 ? ', …' : ''}. ` +
      "dbt's --select and the shell would split or expand the name (white space, ',', ':', '*', '?', '[', or '+'/'@' at its ends). " +
      'Use --format json and select these nodes another way (tag:, path:).',
  );
}

/** How dbt's --select names a node: its name, or its fqn when two nodes share the name. */
function selectorsOf(facts: PlanFacts): Map<string, string> {
  const uses = new Map<string, number>();
  // dbt's name selection never matches sources (they have source:), so only other nodes collide.
  const named = facts.nodes.filter((n) => n.resourceType !== 'source');
  for (const n of named) uses.set(n.name, (uses.get(n.name) ?? 0) + 1);
  return new Map(named.map((n) => [n.uniqueId, (uses.get(n.name) ?? 0) > 1 && n.fqn.length > 0 ? n.fqn.join('.') : n.name]));
}
