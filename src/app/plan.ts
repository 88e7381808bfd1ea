import type { AtticConfig } from '../config/resolve.js';
import { AtticError } from '../errors.js';
import { makePlan, type NodeVerdict, type PlanOptions, type PlanResult } from '../plan/index.js';

/** One node's verdict with every check behind it; explaining is reading, so nothing is recorded. */
export async function explainOf(config: AtticConfig, node: string, options: PlanOptions): Promise<NodeVerdict> {
  return findNode(await makePlan(config, { ...options, record: false }), node);
}

/** A node of the plan by unique_id, selector, or a name only one node has. */
export function findNode(plan: PlanResult, wanted: string): NodeVerdict {
  const exact = plan.nodes.find((n) => n.unique_id === wanted || n.selector === wanted);
  if (exact) return exact;
  const named = plan.nodes.filter((n) => n.name === wanted);
  if (named.length === 1) return named[0]!;
  if (named.length > 1)
    throw new AtticError('usage', `'${wanted}' names ${named.length} nodes: ${named.map((n) => n.unique_id).join(', ')}. Give the unique_id.`);
  throw new AtticError('not-found', `No model, seed, snapshot or test '${wanted}' in the planned manifest.`);
}
