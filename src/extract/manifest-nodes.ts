import { asArray, asObject, json, pick, str, text, type JsonObject } from './fields.js';
import { comparedColumns, comparedConfig } from './compared-config.js';
import { materializationOf } from './build-config.js';
import { macroVersionId, nodeVersionId } from './node-version.js';
import { sha256 } from '../vocab/index.js';
import type { CompiledCodeRow, MacroInvocationRow, MacroVersionRow, NodeDependsOnRow, NodeEntryRow, NodeInvocationRow, NodeVersionRow } from './rows.js';

/**
 * Row shaping for one manifest entry. Common fields become columns, with fallbacks for names
 * that moved across schema versions; what only one resource type has goes to `attributes`.
 */

/**
 * `version` and `compiledCode` are built when first read: a node version or compiled SQL the
 * store already holds (most of them, in a history where few nodes change per run) needs no
 * row, and building one costs more than hashing the node.
 */
export interface NodeEntry {
  kind: 'node';
  readonly version: NodeVersionRow;
  invocation: NodeInvocationRow;
  /** Empty for a disabled node: it takes no part in the DAG. */
  dependsOn: NodeDependsOnRow[];
  /** The SQL this invocation compiled for the node (id in `invocation.compiled_code_id`); null when it compiled none. */
  readonly compiledCode: CompiledCodeRow | null;
  /** The entry as the node_entry memo holds it; null for a disabled node (not remembered). */
  entry: NodeEntryRow | null;
  /** True when `entry` came from the memo: the entry's bytes were not parsed for these rows. */
  known: boolean;
}

export interface MacroEntry {
  kind: 'macro';
  readonly version: MacroVersionRow;
  invocation: MacroInvocationRow;
}

export interface NodeContext {
  invocationId: string;
  schemaVersion: number | null;
  /** The key the node was filed under, for a node that does not repeat its unique_id. */
  key: string;
  /** The resource type its manifest section implies (sources → source), if any. */
  sectionType: string | null;
  disabled: boolean;
  /** Semantic fingerprint of a buildable node; absent for sources, docs, disabled nodes. */
  fingerprint?: (node: () => JsonObject, ids: { uniqueId: string; nodeVersionId: string; listedMacros: unknown }) => string;
}

/** Fields only one resource type has, kept as the `attributes` JSON. */
const ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  model: ['constraints', 'latest_version', 'deprecation_date', 'primary_key', 'time_spine'],
  test: ['test_metadata', 'column_name', 'attached_node', 'file_key_name'],
  source: ['source_name', 'source_description', 'loader', 'loaded_at_field', 'loaded_at_query', 'freshness', 'external', 'quoting', 'source_meta'],
  exposure: ['type', 'owner', 'url', 'maturity', 'label'],
  // v4–v9 metrics (dbt_metrics) and v10+ MetricFlow metrics share only a few fields.
  metric: [
    'label',
    'type',
    'type_params',
    'filter',
    'time_granularity',
    'metadata',
    'calculation_method',
    'expression',
    'sql',
    'timestamp',
    'time_grains',
    'dimensions',
    'filters',
    'window',
    'model',
  ],
  semantic_model: ['model', 'node_relation', 'defaults', 'primary_entity', 'entities', 'measures', 'dimensions', 'label', 'metadata'],
  saved_query: ['query_params', 'exports', 'label', 'metadata'],
  unit_test: ['model', 'given', 'expect', 'overrides', 'versions', 'tested_node_unique_id'],
  group: ['owner'],
  function: ['returns', 'arguments'],
  operation: ['index'],
};

export function shapeNode(node: JsonObject, context: NodeContext, digest: string | null): NodeEntry {
  const uniqueId = str(node.unique_id) ?? context.key;
  const nodeVersion = nodeVersionId(node, context.disabled);
  const compiledCode = compiledCodeRow(node);
  const dependsOn = asObject(node.depends_on);
  let version: NodeVersionRow | undefined;
  const invocation: NodeInvocationRow = {
    invocation_id: context.invocationId,
    unique_id: uniqueId,
    node_version_id: nodeVersion,
    fingerprint: context.fingerprint?.(() => node, { uniqueId, nodeVersionId: nodeVersion, listedMacros: dependsOn?.macros }) ?? null,
    relation_name: str(node.relation_name),
    compiled_code_id: compiledCode?.compiled_code_id ?? null,
  };
  const edges = context.disabled ? { nodes: [], macros: [] } : dependsOnIds(dependsOn);
  return {
    kind: 'node',
    get version() {
      return (version ??= nodeVersionRow(node, uniqueId, nodeVersion, context));
    },
    invocation,
    dependsOn: dependsOnRows(edges, uniqueId, context.invocationId),
    compiledCode,
    entry: digest === null ? null : entryRow(digest, invocation, edges),
    known: false,
  };
}

/**
 * A node whose entry the memo knows: its per-invocation rows come from there, and the entry is
 * parsed only if a row the store lacks must be built (its version or compiled SQL, after a
 * forget removed them) or its fingerprint cannot be carried over.
 */
export function shapeKnownNode(known: NodeEntryRow, parse: () => JsonObject, context: NodeContext): NodeEntry {
  let node: JsonObject | undefined;
  const parsed = () => (node ??= parse());
  const uniqueId = known.unique_id;
  const edges = { nodes: JSON.parse(known.depends_on_nodes) as string[], macros: JSON.parse(known.depends_on_macros) as string[] };
  let version: NodeVersionRow | undefined;
  return {
    kind: 'node',
    get version() {
      return (version ??= nodeVersionRow(parsed(), uniqueId, known.node_version_id, context));
    },
    invocation: {
      invocation_id: context.invocationId,
      unique_id: uniqueId,
      node_version_id: known.node_version_id,
      fingerprint: context.fingerprint?.(parsed, { uniqueId, nodeVersionId: known.node_version_id, listedMacros: edges.macros }) ?? null,
      relation_name: known.relation_name,
      compiled_code_id: known.compiled_code_id,
    },
    dependsOn: dependsOnRows(edges, uniqueId, context.invocationId),
    get compiledCode() {
      return known.compiled_code_id === null ? null : compiledCodeRow(parsed());
    },
    entry: known,
    known: true,
  };
}

function entryRow(digest: string, invocation: NodeInvocationRow, edges: DependsOnIds): NodeEntryRow {
  return {
    entry_digest: digest,
    unique_id: invocation.unique_id,
    node_version_id: invocation.node_version_id,
    relation_name: invocation.relation_name,
    compiled_code_id: invocation.compiled_code_id,
    depends_on_nodes: JSON.stringify(edges.nodes),
    depends_on_macros: JSON.stringify(edges.macros),
  };
}

/**
 * Compiled SQL belongs to the invocation that compiled it (a dev compile renders dev's schema,
 * a parse compiles nothing), not to the node version several invocations share.
 * injected_sql (with ephemeral CTEs) before 0.19, compiled_sql before v7.
 */
function compiledCodeRow(node: JsonObject): CompiledCodeRow | null {
  const code = str(node.compiled_code) ?? str(node.injected_sql) ?? str(node.compiled_sql);
  return code === null ? null : { compiled_code_id: sha256(code), code };
}

function nodeVersionRow(node: JsonObject, uniqueId: string, id: string, context: NodeContext): NodeVersionRow {
  const config = asObject(node.config) ?? {};
  const resourceType = str(node.resource_type) ?? context.sectionType ?? uniqueId.split('.')[0]!;
  const rawCode = str(node.raw_code) ?? str(node.raw_sql) ?? str(node.block_contents);
  return {
    node_version_id: id,
    unique_id: uniqueId,
    resource_type: resourceType,
    disabled: context.disabled,
    name: str(node.name),
    package_name: str(node.package_name),
    path: str(node.original_file_path) ?? str(node.path),
    patch_path: str(node.patch_path),
    language: languageOf(node, resourceType, context.schemaVersion),
    raw_code: rawCode,
    materialization: materializationOf(resourceType, config),
    database_name: str(node.database),
    schema_name: str(node.schema),
    identifier: str(node.alias) ?? str(node.identifier),
    // {name, checksum} for files; a unit test's is the hash itself.
    checksum: str(asObject(node.checksum)?.checksum) ?? str(node.checksum),
    config: json(node.config),
    unrendered_config: json(node.unrendered_config),
    description: str(node.description),
    tags: json(node.tags ?? config.tags),
    meta: json(node.meta ?? config.meta),
    contract: json(node.contract ?? config.contract),
    access: str(node.access) ?? str(config.access),
    version: text(node.version),
    group_name: str(node.group) ?? str(config.group),
    fqn: json(node.fqn),
    declared_columns: json(node.columns),
    attributes: json(pick(node, ATTRIBUTES[resourceType] ?? [])),
    config_compared: comparedConfig(node.config),
    unrendered_config_compared: comparedConfig(node.unrendered_config, { jinja: true }),
    columns_compared: comparedColumns(node.columns, { meta: node.meta ?? config.meta, tags: node.tags ?? config.tags }),
  };
}

/** Before v7 every node with code was SQL, and the manifest did not say so. */
function languageOf(node: JsonObject, resourceType: string, schemaVersion: number | null): string | null {
  const language = str(node.language);
  if (language !== null || (schemaVersion !== null && schemaVersion >= 7)) return language;
  return typeof node.raw_sql === 'string' && resourceType !== 'seed' ? 'sql' : null;
}

interface DependsOnIds {
  nodes: string[];
  macros: string[];
}

/** depends_on's ids, each once per kind: dbt can list a macro twice, and the table's key holds each edge once. */
function dependsOnIds(dependsOn: JsonObject | null): DependsOnIds {
  const unique = (list: unknown) => [
    ...new Set(
      asArray(list)
        .map(str)
        .filter((id): id is string => id !== null),
    ),
  ];
  return { nodes: unique(dependsOn?.nodes), macros: unique(dependsOn?.macros) };
}

function dependsOnRows(edges: DependsOnIds, uniqueId: string, invocationId: string): NodeDependsOnRow[] {
  const row =
    (kind: 'node' | 'macro') =>
    (id: string): NodeDependsOnRow => ({ invocation_id: invocationId, unique_id: uniqueId, depends_on_id: id, kind });
  return [...edges.nodes.map(row('node')), ...edges.macros.map(row('macro'))];
}

export function shapeMacro(macro: JsonObject, invocationId: string, key: string): MacroEntry {
  const uniqueId = str(macro.unique_id) ?? key;
  const id = macroVersionId(macro);
  let version: MacroVersionRow | undefined;
  return {
    kind: 'macro',
    get version() {
      return (version ??= macroVersionRow(macro, id, uniqueId));
    },
    invocation: { invocation_id: invocationId, unique_id: uniqueId, macro_version_id: id },
  };
}

function macroVersionRow(macro: JsonObject, id: string, uniqueId: string): MacroVersionRow {
  return {
    macro_version_id: id,
    unique_id: uniqueId,
    name: str(macro.name),
    package_name: str(macro.package_name),
    path: str(macro.original_file_path) ?? str(macro.path),
    patch_path: str(macro.patch_path),
    macro_sql: str(macro.macro_sql),
    description: str(macro.description),
    meta: json(macro.meta),
    arguments: json(macro.arguments),
    depends_on_macros: json(asObject(macro.depends_on)?.macros),
    supported_languages: json(macro.supported_languages),
  };
}
