import type { CurrentNode, PlanFacts, ScopedBuilds } from '../store/index.js';
import { checkBuildAfter, INPUT_REASONS } from './build-after.js';
import { lineageOf, upstreamFirst } from './graph.js';
import { inputsOf, isPlanned, type NodeInputs } from './inputs.js';
import { checkNode, type CheckContext, type Chosen } from './node-checks.js';
import { isoFromMicros } from './time.js';
import { BUILD_REASONS, type BuildReason, type Check, type NodeVerdict } from './types.js';

export interface DecideOptions {
  /** The branch whose builds a node never built on the planned branch may reuse. */
  deferTo: string | null;
  /** What build_after measures to; default: when the planned manifest was written. */
  nowUs?: number | null;
}

const NO_BUILDS: ScopedBuilds = { lastAttempt: null, lastSuccess: null };
const RANK = new Map<BuildReason, number>(BUILD_REASONS.map((r, i) => [r, i]));

/**
 * The plan itself: a verdict for every model, seed, snapshot and test of the manifest, parents
 * before children so that "upstream will build" is known. Pure: facts in, verdicts out.
 */
export function decidePlan(facts: PlanFacts, options: DecideOptions): NodeVerdict[] {
  const lineage = lineageOf(facts.nodes);
  const verdicts = new Map<string, NodeVerdict>();
  const ctx: CheckContext = {
    facts,
    chosen: (id) => chooseBuilds(facts, id, options.deferTo),
    verdictOf: (id) => verdicts.get(id),
    nodeOf: (id) => lineage.byId.get(id),
  };
  const nowUs = options.nowUs === undefined ? facts.generatedAtUs : options.nowUs;
  for (const id of upstreamFirst(lineage)) {
    const node = lineage.byId.get(id)!;
    if (!isPlanned(node)) continue;
    const inputs = inputsOf(node, lineage);
    const checks = checkNode(node, inputs, ctx);
    verdicts.set(id, verdictOf(node, checks, ctx.chosen(id), { inputs, nowUs }));
  }
  return [...verdicts.values()].sort((a, b) => a.unique_id.localeCompare(b.unique_id));
}

function chooseBuilds(facts: PlanFacts, id: string, deferTo: string | null): Chosen {
  const builds = facts.builds.get(id);
  const own = builds?.own ?? NO_BUILDS;
  if (own.lastAttempt || own.lastSuccess || !deferTo || !builds?.defer) return { builds: own, fromBranch: null };
  return { builds: builds.defer, fromBranch: deferTo };
}

interface VerdictInputs {
  inputs: NodeInputs;
  nowUs: number | null;
}

function verdictOf(node: CurrentNode, checks: Check[], chosen: Chosen, v: VerdictInputs): NodeVerdict {
  const success = chosen.builds.lastSuccess;
  const base = {
    unique_id: node.uniqueId,
    name: node.name,
    resource_type: node.resourceType,
    selector: node.name,
    last_build: success ? { invocation_id: success.invocationId, finished_at: isoFromMicros(success.finishedAtUs) } : null,
    checks,
  };
  const reason = firstReason(checks);
  if (reason === null) return { ...base, verdict: 'reuse', reason: 'unchanged', from_branch: chosen.fromBranch };
  if (INPUT_REASONS.has(reason) && node.buildAfter) {
    const held = checkBuildAfter({ config: node.buildAfter, builtAtUs: success?.finishedAtUs ?? null, nowUs: v.nowUs, ...changedInputs(checks, v.inputs) });
    if (held) checks.push(held);
    if (held?.ok) return { ...base, verdict: 'reuse', reason: 'within build_after', from_branch: chosen.fromBranch };
  }
  return { ...base, verdict: 'build', reason, from_branch: null };
}

/** The failed check whose reason comes first in the fixed order. */
function firstReason(checks: readonly Check[]): BuildReason | null {
  let best: BuildReason | null = null;
  for (const c of checks) {
    if (c.ok || c.reason === null) continue;
    if (best === null || RANK.get(c.reason)! < RANK.get(best)!) best = c.reason;
  }
  return best;
}

function changedInputs(checks: readonly Check[], inputs: NodeInputs): { changedInputs: number; totalInputs: number } {
  const names = new Set([...inputs.built.map((id) => `upstream ${id}`), ...inputs.sources.map((id) => `source ${id}`)]);
  const changed = checks.filter((c) => !c.ok && names.has(c.check)).length;
  return { changedInputs: changed, totalInputs: names.size };
}
