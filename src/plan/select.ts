import { AtticError } from '../errors.js';
import type { CurrentNode } from '../store/index.js';
import { reachable, type Lineage } from './graph.js';

/**
 * dbt's simple node selection: names, `tag:`, `path:`, `resource_type:`, with the graph
 * operators `+` (all ancestors or descendants) and `n+` / `+n` (n steps). Several selectors
 * (arguments, or space-separated) are a union. Intersections (`a,b`), `@`, wildcards and other
 * methods are refused with the list of what is supported, rather than guessed at.
 */
const METHODS = ['tag', 'path', 'resource_type'] as const;
type Method = (typeof METHODS)[number] | 'name';

interface Selector {
  method: Method;
  value: string;
  up: number;
  down: number;
}

const SUPPORTED = 'names (orders, my_package.orders), tag:NAME, path:DIR, resource_type:TYPE, with + graph operators (+orders, orders+, 2+orders, orders+1)';
const SHAPE = /^(?:(\d*)\+)?(?:([a-z_]+):)?([^:+,@*?\s]+)(?:\+(\d*))?$/;

export function parseSelectors(specs: readonly string[]): Selector[] {
  return specs.flatMap((spec) => spec.split(/\s+/).filter(Boolean)).map(parseSelector);
}

function parseSelector(text: string): Selector {
  const m = SHAPE.exec(text);
  const method = m?.[2] ?? 'name';
  if (!m || !(method === 'name' || (METHODS as readonly string[]).includes(method))) {
    throw new AtticError('usage', `Unsupported selector '${text}'. plan understands ${SUPPORTED}.`);
  }
  const depth = (prefix: string | undefined): number => (prefix === undefined ? 0 : prefix === '' ? Infinity : Number(prefix));
  return { method: method as Method, value: m[3]!, up: depth(m[1]), down: depth(m[4]) };
}

function matches(node: CurrentNode, s: Selector): boolean {
  switch (s.method) {
    case 'name':
      // As dbt's fqn method: sources are selected with source:, never by name.
      if (node.resourceType === 'source') return false;
      return node.name === s.value || `${node.packageName}.${node.name}` === s.value || node.fqn.join('.') === s.value;
    case 'tag':
      return node.tags.includes(s.value);
    case 'path': {
      const dir = s.value.replace(/\/+$/, '');
      return node.path === dir || (node.path?.startsWith(`${dir}/`) ?? false);
    }
    case 'resource_type':
      return node.resourceType === s.value;
  }
}

/** The unique_ids the selectors pick, with the graph operators applied. */
export function selectNodes(lineage: Lineage, selectors: readonly Selector[]): Set<string> {
  const chosen = new Set<string>();
  const parents = (id: string): string[] => lineage.byId.get(id)?.parents ?? [];
  const children = (id: string): string[] => lineage.children.get(id) ?? [];
  for (const s of selectors) {
    for (const node of lineage.byId.values()) {
      if (!matches(node, s)) continue;
      chosen.add(node.uniqueId);
      if (s.up > 0) for (const id of reachable(node.uniqueId, parents, s.up)) chosen.add(id);
      if (s.down > 0) for (const id of reachable(node.uniqueId, children, s.down)) chosen.add(id);
    }
  }
  return chosen;
}

/**
 * What `dbt build --select … --exclude …` would run: the selected nodes (everything when
 * nothing is selected), and, as dbt's default "eager" indirect selection does, every test of a
 * selected node; then the excluded nodes and the tests that touch them are taken out.
 */
export function applySelection(lineage: Lineage, select: readonly string[], exclude: readonly string[]): (id: string) => boolean {
  const included = select.length > 0 ? selectNodes(lineage, parseSelectors(select)) : new Set(lineage.byId.keys());
  const excluded = exclude.length > 0 ? selectNodes(lineage, parseSelectors(exclude)) : new Set<string>();
  const isTest = (node: CurrentNode): boolean => node.resourceType === 'test' || node.resourceType === 'unit_test';
  return (id) => {
    const node = lineage.byId.get(id);
    if (!node || excluded.has(id)) return false;
    if (!isTest(node)) return included.has(id);
    if (node.parents.some((p) => excluded.has(p))) return false;
    return included.has(id) || node.parents.some((p) => included.has(p));
  };
}
