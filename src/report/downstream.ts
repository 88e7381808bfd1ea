/**
 * What a change reaches: every node below a changed one in the lineage (refs, sources, a test's
 * model), as `state:modified+` would select it. Pure: edges in, descendants out.
 */
export function downstreamOf(edges: readonly Record<string, unknown>[], changed: readonly string[]): Map<string, string[]> {
  const children = new Map<string, string[]>();
  for (const e of edges) {
    const parent = String(e.depends_on_id);
    const list = children.get(parent) ?? children.set(parent, []).get(parent)!;
    list.push(String(e.unique_id));
  }
  return new Map(changed.map((id) => [id, descendants(children, id)]));
}

function descendants(children: Map<string, string[]>, start: string): string[] {
  const seen = new Set<string>([start]);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    for (const child of children.get(queue[i]!) ?? []) {
      if (seen.has(child)) continue;
      seen.add(child);
      queue.push(child);
    }
  }
  seen.delete(start);
  return [...seen].sort();
}
