import path from 'node:path';
import type { Step } from '../../fixtures/generate.mjs';
import { readJson, type Json } from './artifact-facts.js';

/**
 * A manifest's graph read straight from its JSON (not through dbtattic), for tests that check
 * plan verdicts against what the artifacts say.
 */
export interface ManifestGraph {
  /** model, seed, snapshot and test nodes dbt builds (ephemeral models left out), by unique_id. */
  planned: Map<string, Json>;
  parentsOf(id: string): string[];
  /** Every node downstream of `id` (not itself), tests included. */
  descendants(id: string): Set<string>;
}

export function manifestGraph(file: string): ManifestGraph {
  const nodes = (readJson(file).nodes ?? {}) as Record<string, Json>;
  const parentsOf = (id: string): string[] => ((nodes[id]?.depends_on as Json | undefined)?.nodes as string[] | undefined) ?? [];
  const children = new Map<string, string[]>();
  for (const id of Object.keys(nodes)) for (const p of parentsOf(id)) children.set(p, [...(children.get(p) ?? []), id]);
  const planned = new Map(
    Object.entries(nodes).filter(
      ([, n]) => ['model', 'seed', 'snapshot', 'test'].includes(String(n.resource_type)) && (n.config as Json | undefined)?.materialized !== 'ephemeral',
    ),
  );
  const descendants = (id: string): Set<string> => {
    const found = new Set<string>();
    const stack = [...(children.get(id) ?? [])];
    while (stack.length) {
      const next = stack.pop()!;
      if (found.has(next)) continue;
      found.add(next);
      stack.push(...(children.get(next) ?? []));
    }
    return found;
  };
  return { planned, parentsOf, descendants };
}

export function stepFile(history: string, step: Step, file: string): string {
  return path.join(history, step.dir, 'target', file);
}
