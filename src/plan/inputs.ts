import type { CurrentNode } from '../store/index.js';
import type { Lineage } from './graph.js';

/** Resource types a plan gives a verdict: what `dbt build` runs. */
export const PLANNED_TYPES = new Set(['model', 'seed', 'snapshot', 'test', 'unit_test']);

/** dbt never builds an ephemeral model: its SQL is compiled into each child. */
export const isEphemeral = (node: CurrentNode): boolean => node.resourceType === 'model' && node.materialization === 'ephemeral';

export const isPlanned = (node: CurrentNode): boolean => PLANNED_TYPES.has(node.resourceType) && !isEphemeral(node);

/** What a node reads, looking through ephemeral models to what they read. */
export interface NodeInputs {
  built: string[];
  sources: string[];
  ephemeral: string[];
}

export function inputsOf(node: CurrentNode, lineage: Lineage): NodeInputs {
  const inputs: NodeInputs = { built: [], sources: [], ephemeral: [] };
  const seen = new Set<string>();
  const visit = (ids: readonly string[]): void => {
    for (const id of ids) {
      const parent = lineage.byId.get(id);
      if (!parent || seen.has(id)) continue;
      seen.add(id);
      if (parent.resourceType === 'source') inputs.sources.push(id);
      else if (isEphemeral(parent)) {
        inputs.ephemeral.push(id);
        visit(parent.parents);
      } else if (isPlanned(parent)) inputs.built.push(id);
    }
  };
  visit(node.parents);
  return inputs;
}
