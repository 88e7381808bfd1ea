import type { SqlDialect } from './sql-dialect.js';
import { normalizeSql } from './sql-tokens.js';
import { canonicalJson } from '../vocab/hash.js';

/**
 * The part of a node's config that changes what it builds, read as the user configured it.
 *
 * Where a value comes from: `unrendered_config` when it holds the key, else `config`. The
 * unrendered value is what the user wrote (`schema: "{{ env_var('X') }}"`), the same on every
 * target; `config` holds it rendered for the target of that run, so it is only the fallback, for
 * keys left at their default (absent from `unrendered_config`) and for manifests without it.
 * Keys the node sets in its own code are skipped: dbt renders `config()` arguments even into
 * `unrendered_config`, and the code fingerprint holds them as written (code-config.ts).
 */

/** The node's config fields this module reads; anything else in the manifest is ignored. */
export interface ConfiguredNode {
  resource_type?: unknown;
  config?: Readonly<Record<string, unknown>> | null;
  unrendered_config?: Readonly<Record<string, unknown>> | null;
}

/**
 * Resource types that have one materialization, named after them: dbt 1.x writes it out,
 * dbt Fusion leaves it out. Either way it is the only one the node can have.
 */
const OWN_MATERIALIZATION: Readonly<Record<string, string>> = { seed: 'seed', snapshot: 'snapshot', test: 'test' };

/** The node's materialization: as configured, else the one its resource type implies. */
export function materializationOf(resourceType: string, config: Readonly<Record<string, unknown>>): string | null {
  const configured = config.materialized;
  if (typeof configured === 'string' && configured !== '') return configured;
  return OWN_MATERIALIZATION[resourceType] ?? null;
}

/**
 * Keys that change the data a node builds, the way it is written, or a test's verdict.
 * Left out on purpose, because they change neither the data nor whether a rebuild is needed:
 * tags, meta, docs, persist_docs (comments only), grants, copy_grants and access (who may read,
 * not what), group, enabled (a disabled node is not in `nodes` at all), labels, query_tag,
 * snowflake_warehouse, compute and cluster settings (where it runs, not what), concurrent_batches
 * (parallelism), static_analysis (how dbt parses). `contract` is read by node-fingerprint.ts.
 */
const BUILD_KEYS = [
  // materialization and how an incremental run merges
  'materialized',
  'incremental_strategy',
  'unique_key',
  'on_schema_change',
  'on_configuration_change',
  'full_refresh',
  'incremental_predicates',
  'predicates',
  'merge_update_columns',
  'merge_exclude_columns',
  'batch_size',
  'lookback',
  'begin',
  'event_time',
  // SQL run before, around and after the build
  'pre-hook',
  'post-hook',
  'sql_header',
  // physical layout and table options, which take a rebuild to change
  'partition_by',
  'cluster_by',
  'clustered_by',
  'buckets',
  'liquid_clustered_by',
  'zorder',
  'sort',
  'dist',
  'sort_type',
  'indexes',
  'file_format',
  'table_format',
  'location',
  'location_root',
  'tblproperties',
  'transient',
  'table_type',
  'require_partition_filter',
  'partition_expiration_days',
  'target_lag',
  'refresh_mode',
  'as_columnstore',
  // seeds: how the file becomes a table
  'column_types',
  'quote_columns',
  'delimiter',
  // snapshots
  'strategy',
  'updated_at',
  'check_cols',
  'target_schema',
  'target_database',
  'invalidate_hard_deletes',
  'hard_deletes',
  'snapshot_meta_column_names',
  'dbt_valid_to_current',
  // tests: which rows fail, when that is a warning or an error, and whether failures are stored
  'severity',
  'where',
  'limit',
  'fail_calc',
  'warn_if',
  'error_if',
  'store_failures',
  'store_failures_as',
  // python models
  'packages',
  'python_version',
  'imports',
] as const;

/** Where the node lands, as configured (custom schema, not the schema rendered for a target). */
const RELATION_KEYS = ['database', 'schema', 'alias', 'quoting'] as const;

/**
 * Values dbt writes for a key the user did not set. Newer dbt versions write them, older ones
 * leave the key out; counting them as absent keeps an upgrade of dbt from looking like an edit.
 */
const IMPLICIT_DEFAULTS: Readonly<Record<string, string | boolean | number>> = {
  on_schema_change: 'ignore',
  on_configuration_change: 'apply',
  severity: 'error',
  fail_calc: 'count(*)',
  warn_if: '!= 0',
  error_if: '!= 0',
  hard_deletes: 'ignore',
  invalidate_hard_deletes: false,
  lookback: 1,
  delimiter: ',',
};

/** Hooks were `pre-hook` in dbt 1.x and also `pre_hook` in later writers. */
const HOOK_ALIASES: Readonly<Record<string, string>> = { 'pre-hook': 'pre_hook', 'post-hook': 'post_hook' };

/** `setInCode`: keys the node's own code sets, which its code fingerprint covers (code-config.ts). */
export function pickBuildConfig(node: ConfiguredNode, dialect: SqlDialect, setInCode: ReadonlySet<string>): Record<string, unknown> {
  return pickKeys(node, BUILD_KEYS, dialect, setInCode);
}

export function pickRelation(node: ConfiguredNode, dialect: SqlDialect, setInCode: ReadonlySet<string>): Record<string, unknown> {
  return pickKeys(node, RELATION_KEYS, dialect, setInCode);
}

function pickKeys(node: ConfiguredNode, keys: readonly string[], dialect: SqlDialect, setInCode: ReadonlySet<string>): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const key of keys) {
    // Hooks add up across levels instead of overriding, so one set in the code hides no other.
    if (setInCode.has(key) && !(key in HOOK_ALIASES)) continue;
    const value = normalizeValue(key, configuredValue(node, key), dialect);
    if (!isAbsent(value) && !isImplicitDefault(key, value) && !isOwnMaterialization(node, key, value)) picked[key] = value;
  }
  return picked;
}

/** A list read as a set, at any depth: each entry once, in the order first written. */
export function withoutRepeats(value: unknown): unknown {
  if (Array.isArray(value)) {
    const seen = new Set<string>();
    return value.filter((item) => {
      const key = canonicalJson(item);
      return !seen.has(key) && Boolean(seen.add(key));
    });
  }
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withoutRepeats(item)]));
  return value;
}

function isOwnMaterialization(node: ConfiguredNode, key: string, value: unknown): boolean {
  return key === 'materialized' && typeof node.resource_type === 'string' && OWN_MATERIALIZATION[node.resource_type] === value;
}

function configuredValue(node: ConfiguredNode, key: string): unknown {
  const alias = HOOK_ALIASES[key];
  for (const source of [node.unrendered_config, node.config]) {
    if (!isRecord(source)) continue;
    if (key in source) return source[key];
    if (alias !== undefined && alias in source) return source[alias];
  }
  return undefined;
}

/** Hooks and SQL headers are SQL: a reformatted hook is not a changed one. */
function normalizeValue(key: string, value: unknown, dialect: SqlDialect): unknown {
  if (key === 'sql_header') return typeof value === 'string' ? normalizeSql(value, dialect) : value;
  if (key === 'quoting') return quotingBeyondDefaults(value, dialect.adapter);
  if (key in HOOK_ALIASES) return normalizeHooks(value, dialect);
  // A key of several columns is a set: dbt 1.12 writes a snapshot's twice over, Fusion once.
  if (key === 'unique_key') return withoutRepeats(value);
  return value;
}

/** `"sql"`, `["sql"]` or `[{sql, transaction, index}]` all become `[{sql, transaction}]`. */
function normalizeHooks(value: unknown, dialect: SqlDialect): unknown[] {
  const hooks = Array.isArray(value) ? value : [value];
  return hooks.flatMap((hook: unknown) => {
    if (typeof hook === 'string') return [{ sql: normalizeSql(hook, dialect), transaction: true }];
    if (!isRecord(hook) || typeof hook.sql !== 'string') return isAbsent(hook) ? [] : [hook];
    return [{ sql: normalizeSql(hook.sql, dialect), transaction: hook.transaction !== false }];
  });
}

/**
 * Each adapter quotes database, schema and identifier by default (all three on every adapter
 * but Snowflake, none there); dbt 1.x writes `quoting: {}` for that, dbt Fusion writes the
 * defaults out, plus `snowflake_ignore_case: false`. Only a value that differs from the
 * adapter's default changes the relation: the same relation quoted by a newer dbt is no change.
 * The same rule is `effective_quoting` in schema/002-macros.sql.
 */
export function quotingBeyondDefaults(value: unknown, adapter: string): Record<string, unknown> | unknown {
  if (!isRecord(value)) return value;
  const quotedByDefault = adapter !== 'snowflake';
  const kept: Record<string, unknown> = {};
  for (const [part, quoted] of Object.entries(value)) {
    const isDefault = part === 'snowflake_ignore_case' ? quoted === false : ['database', 'schema', 'identifier'].includes(part) && quoted === quotedByDefault;
    if (!isDefault && quoted !== null && quoted !== undefined) kept[part] = quoted;
  }
  return kept;
}

export function isImplicitDefault(key: string, value: unknown): boolean {
  const implicit = IMPLICIT_DEFAULTS[key];
  if (implicit === undefined) return false;
  return typeof value === 'string' ? value.trim().toLowerCase() === implicit : value === implicit;
}

/** null, '', [] and objects of nothing but those mean "not set" in every manifest version. */
export function isAbsent(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return isRecord(value) && Object.values(value).every(isAbsent);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
