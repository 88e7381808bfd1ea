import type { CurrentNode } from '../store/index.js';

/** The current manifest's lineage: parents as depends_on names them, children derived. */
export interface Lineage {
  byId: Map<string, CurrentNode>;
  children: Map<string, string[]>;
}

export function lineageOf(nodes: readonly CurrentNode[]): Lineage {
  const byId = new Map(nodes.map((n) => [n.uniqueId, n]));
  const children = new Map<string, string[]>();
  for (const node of nodes) {
    for (const parent of node.parents) {
      const list = children.get(parent) ?? [];
      list.push(node.uniqueId);
      children.set(parent, list);
    }
  }
  return { byId, children };
}

/** Parents before children (Kahn's algorithm); a cycle, which dbt refuses, is appended as is. */
export function upstreamFirst(lineage: Lineage): string[] {
  const waiting = new Map<string, number>();
  for (const node of lineage.byId.values()) waiting.set(node.uniqueId, node.parents.filter((p) => lineage.byId.has(p)).length);
  const ready = [...waiting].filter(([, n]) => n === 0).map(([id]) => id);
  const order: string[] = [];
  for (let i = 0; i < ready.length; i++) {
    const id = ready[i]!;
    order.push(id);
    for (const child of lineage.children.get(id) ?? []) {
      const left = (waiting.get(child) ?? 0) - 1;
      waiting.set(child, left);
      if (left === 0) ready.push(child);
    }
  }
  if (order.length < lineage.byId.size) order.push(...[...lineage.byId.keys()].filter((id) => !order.includes(id)));
  return order;
}

/** Nodes within `depth` steps (Infinity: all) along `next`, not counting the start. */
export function reachable(start: string, next: (id: string) => readonly string[], depth: number): Set<string> {
  const found = new Set<string>();
  let frontier = [start];
  for (let step = 0; step < depth && frontier.length > 0; step++) {
    const following: string[] = [];
    for (const id of frontier) {
      for (const other of next(id)) {
        if (found.has(other) || other === start) continue;
        found.add(other);
        following.push(other);
      }
    }
    frontier = following;
  }
  return found;
}
