/**
 * How many rows the store should hold for one artifact, counted from its JSON with JSON.parse
 * alone, never through src/extract, so a test comparing the two checks extract and ingest
 * rather than repeating them. Keys name what is counted:
 *   'node <resource_type>' and 'node <resource_type> disabled'   node_invocation ⨝ node_version
 *   'edge node' / 'edge macro'                                  node_depends_on
 *   'macro'                                                     macro_invocation ⨝ macro_version
 *   'result <status>'                                           run_result
 *   'freshness <status>'                                        source_freshness
 *   'catalog table' / 'catalog column'                          catalog_table / catalog_column
 *   'semantic <kind>'                                           semantic_definition
 */
export type RowCounts = Record<string, number>;

/** The same counts read from a store, per invocation, under the same keys. */
export const STORE_COUNTS = `
  SELECT invocation_id, 'node ' || coalesce(v.resource_type, '(no version row)') || CASE WHEN v.disabled THEN ' disabled' ELSE '' END AS key, count(*) AS n
    FROM node_invocation i LEFT JOIN node_version v USING (node_version_id) GROUP BY ALL
  UNION ALL SELECT invocation_id, 'edge ' || kind, count(*) FROM node_depends_on GROUP BY ALL
  UNION ALL SELECT invocation_id, CASE WHEN v.macro_version_id IS NULL THEN 'macro (no version row)' ELSE 'macro' END, count(*)
    FROM macro_invocation i LEFT JOIN macro_version v USING (macro_version_id) GROUP BY ALL
  UNION ALL SELECT invocation_id, 'result ' || coalesce(status, 'null'), count(*) FROM run_result GROUP BY ALL
  UNION ALL SELECT invocation_id, 'freshness ' || coalesce(status, 'null'), count(*) FROM source_freshness GROUP BY ALL
  UNION ALL SELECT invocation_id, 'catalog table', count(*) FROM catalog_table GROUP BY ALL
  UNION ALL SELECT invocation_id, 'catalog column', count(*) FROM catalog_column GROUP BY ALL
  UNION ALL SELECT invocation_id, 'semantic ' || kind, count(*) FROM semantic_definition GROUP BY ALL`;

type Json = Record<string, unknown>;

/** Top-level manifest maps that are not maps of nodes. */
const NOT_NODES = new Set(['metadata', 'macros', 'disabled', 'selectors', 'parent_map', 'child_map', 'group_map']);

export function countArtifactRows(artifact: string, doc: Json): RowCounts {
  const counts: RowCounts = {};
  const add = (key: string, n = 1): void => {
    if (n > 0) counts[key] = (counts[key] ?? 0) + n;
  };
  if (artifact === 'manifest') countManifest(doc, add);
  else if (artifact === 'run_results') countResults(doc, 'result', add);
  else if (artifact === 'sources') countResults(doc, 'freshness', add);
  else if (artifact === 'catalog') countCatalog(doc, add);
  else if (artifact === 'semantic_manifest') countSemantic(doc, add);
  else throw new Error(`no counting rule for ${artifact}`);
  return counts;
}

type Add = (key: string, n?: number) => void;

function countManifest(doc: Json, add: Add): void {
  for (const [section, value] of Object.entries(doc)) {
    if (NOT_NODES.has(section) || !isMap(value)) continue;
    for (const node of Object.values(value)) {
      if (!isMap(node) || typeof node.unique_id !== 'string') continue;
      // Doc blocks of older manifests carry no resource_type; their section says what they are.
      const type = str(node.resource_type) ?? (section === 'docs' ? 'doc' : node.unique_id.split('.')[0]!);
      add(`node ${type}`);
      countEdges(node, add);
    }
  }
  add('macro', isMap(doc.macros) ? Object.keys(doc.macros).length : 0);
  for (const [uniqueId, entries] of disabledGroups(doc.disabled)) {
    // The same definition listed twice under one id is one node version.
    const distinct = new Set(entries.map((entry) => JSON.stringify(entry)));
    for (const text of distinct) {
      const entry = JSON.parse(text) as Json;
      add(`node ${str(entry.resource_type) ?? uniqueId.split('.')[0]} disabled`);
    }
  }
}

function countEdges(node: Json, add: Add): void {
  const dependsOn = isMap(node.depends_on) ? node.depends_on : {};
  add('edge node', new Set(strings(dependsOn.nodes)).size);
  add('edge macro', new Set(strings(dependsOn.macros)).size);
}

/** v1–v3 wrote `disabled` as a list of nodes, v4+ as a map from unique_id to a list. */
function disabledGroups(disabled: unknown): [string, Json[]][] {
  if (Array.isArray(disabled)) {
    const groups = new Map<string, Json[]>();
    for (const entry of disabled.filter(isMap)) {
      const id = str(entry.unique_id) ?? '';
      groups.set(id, [...(groups.get(id) ?? []), entry]);
    }
    return [...groups];
  }
  if (!isMap(disabled)) return [];
  return Object.entries(disabled).map(([id, list]) => [id, Array.isArray(list) ? list.filter(isMap) : []]);
}

function countResults(doc: Json, prefix: 'result' | 'freshness', add: Add): void {
  const metadata = isMap(doc.metadata) ? doc.metadata : {};
  const legacy = typeof metadata.dbt_schema_version !== 'string';
  for (const result of Array.isArray(doc.results) ? doc.results.filter(isMap) : []) {
    const node = isMap(result.node) ? result.node : {};
    if (str(result.unique_id) === null && str(node.unique_id) === null) continue;
    const status = prefix === 'result' ? runStatus(result, node, legacy) : freshnessStatus(result, legacy);
    add(`${prefix} ${status}`);
  }
}

/** Before 0.19 `status` held the adapter's message; the outcome is in error/skip/fail/warn. */
function runStatus(result: Json, node: Json, legacy: boolean): string {
  if (!legacy) return str(result.status)?.toLowerCase() ?? 'null';
  if (str(result.error) !== null) return 'error';
  if (result.skip === true) return 'skipped';
  if (node.resource_type !== 'test') return 'success';
  if (result.fail === true) return 'fail';
  if (result.warn === true) return 'warn';
  return Number(result.status) > 0 ? 'fail' : 'pass';
}

/** Before 0.19 a query that failed was "error" beside its message; 0.19 calls it "runtime error". */
function freshnessStatus(result: Json, legacy: boolean): string {
  if (legacy && str(result.error) !== null) return 'runtime error';
  return str(result.status)?.toLowerCase() ?? 'null';
}

function countCatalog(doc: Json, add: Add): void {
  for (const section of ['nodes', 'sources']) {
    const relations = isMap(doc[section]) ? Object.values(doc[section] as Json).filter(isMap) : [];
    add('catalog table', relations.length);
    for (const relation of relations) add('catalog column', isMap(relation.columns) ? Object.keys(relation.columns).length : 0);
  }
}

function countSemantic(doc: Json, add: Add): void {
  const lists = { semantic_models: 'semantic_model', metrics: 'metric', saved_queries: 'saved_query' };
  for (const [key, kind] of Object.entries(lists)) add(`semantic ${kind}`, Array.isArray(doc[key]) ? doc[key].length : 0);
  if (doc.project_configuration !== undefined && doc.project_configuration !== null) add('semantic project_configuration');
}

function isMap(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
