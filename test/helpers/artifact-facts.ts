import { readFileSync } from 'node:fs';

/**
 * Facts read straight from artifact JSON, without dbtattic's code, so end-to-end tests of
 * inspect and diff compare the CLI with what the files themselves say.
 */
export type Json = Record<string, unknown>;

export function readJson(file: string): Json {
  return JSON.parse(readFileSync(file, 'utf8')) as Json;
}

export function metadataOf(doc: Json): { invocation_id?: string; generated_at?: string; dbt_version?: string; adapter_type?: string } {
  return (doc.metadata ?? {}) as Record<string, string>;
}

export interface NodeFacts {
  resourceType: string;
  /** raw_code since manifest v7, raw_sql before; null for sources, exposures and the like. */
  code: string | null;
  checksum: string | null;
}

/** The manifest sections whose entries are nodes (`disabled` is left out: a disabled node is not compared). */
const NODE_SECTIONS = ['nodes', 'sources', 'exposures', 'metrics', 'semantic_models', 'saved_queries', 'unit_tests', 'groups', 'functions', 'docs'];

export function enabledNodes(manifest: Json): Map<string, NodeFacts> {
  const nodes = new Map<string, NodeFacts>();
  for (const section of NODE_SECTIONS) {
    for (const [key, value] of Object.entries((manifest[section] ?? {}) as Record<string, Json>)) {
      const code = value.raw_code ?? value.raw_sql ?? value.block_contents;
      const checksum = (value.checksum as { checksum?: unknown } | undefined)?.checksum;
      nodes.set(typeof value.unique_id === 'string' ? value.unique_id : key, {
        resourceType: String(value.resource_type ?? section),
        code: typeof code === 'string' ? code : null,
        checksum: typeof checksum === 'string' ? checksum : null,
      });
    }
  }
  return nodes;
}

export interface NodeSetChange {
  added: string[];
  removed: string[];
  /** In both, with different code or file checksum. */
  codeChanged: string[];
}

export function compareManifests(from: Json, to: Json): NodeSetChange {
  const a = enabledNodes(from);
  const b = enabledNodes(to);
  const sorted = (ids: Iterable<string>): string[] => [...ids].sort();
  return {
    added: sorted([...b.keys()].filter((id) => !a.has(id))),
    removed: sorted([...a.keys()].filter((id) => !b.has(id))),
    codeChanged: sorted([...b.keys()].filter((id) => a.has(id) && (a.get(id)!.code !== b.get(id)!.code || a.get(id)!.checksum !== b.get(id)!.checksum))),
  };
}

/** unique_id → status (lower case) of a run_results.json or sources.json. */
export function resultStatuses(results: Json): Map<string, string> {
  const out = new Map<string, string>();
  for (const result of (results.results ?? []) as Json[]) out.set(String(result.unique_id), String(result.status).toLowerCase());
  return out;
}

export function countStatuses(statuses: Map<string, string>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const status of statuses.values()) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

export interface StatusChange {
  unique_id: string;
  from_status: string;
  to_status: string;
}

/** Nodes both runs reported on whose status differs, by unique_id. */
export function statusChanges(from: Map<string, string>, to: Map<string, string>): StatusChange[] {
  return [...to.entries()]
    .filter(([id, status]) => from.has(id) && from.get(id) !== status)
    .map(([id, status]) => ({ unique_id: id, from_status: from.get(id)!, to_status: status }))
    .sort((x, y) => x.unique_id.localeCompare(y.unique_id));
}

/** Macros (`macro.<package>.<name>`) in both manifests whose SQL differs. */
export function changedMacros(from: Json, to: Json): string[] {
  const sqlOf = (doc: Json): Map<string, unknown> =>
    new Map(Object.entries((doc.macros ?? {}) as Record<string, Json>).map(([id, macro]) => [id, macro.macro_sql]));
  const a = sqlOf(from);
  return [...sqlOf(to).entries()].filter(([id, sql]) => a.has(id) && a.get(id) !== sql).map(([id]) => id);
}

export function changedMacroNames(from: Json, to: Json): string[] {
  return changedMacros(from, to).map((id) => id.slice(id.lastIndexOf('.') + 1));
}

/** Nodes of `to` that list, in depends_on.macros, a macro whose SQL changed since `from`. */
export function nodesDependingOnChangedMacros(from: Json, to: Json): string[] {
  const changed = new Set(changedMacros(from, to));
  return Object.entries((to.nodes ?? {}) as Record<string, Json>)
    .filter(([, node]) => ((node.depends_on as { macros?: string[] } | undefined)?.macros ?? []).some((id) => changed.has(id)))
    .map(([id]) => id)
    .sort();
}

/** Nodes whose code calls `name(` for one of the names (not a mention in a longer identifier). */
export function nodesCalling(manifest: Json, names: string[]): string[] {
  const calls = names.map((name) => new RegExp(`(^|[^\\w.])${name}\\s*\\(`));
  return [...enabledNodes(manifest).entries()]
    .filter(([, node]) => node.code !== null && calls.some((call) => call.test(node.code!)))
    .map(([id]) => id)
    .sort();
}
