import { canonicalJson } from '../vocab/hash.js';
import { isAbsent, isImplicitDefault, isRecord, withoutRepeats } from './build-config.js';

/**
 * A node's config (or unrendered_config, or declared columns) as it is compared between two
 * invocations: what the user set, without what a dbt release writes on its own. Newer dbt
 * versions add keys with null or empty values (`incremental_strategy: null`, `packages: []`,
 * `docs: {show: true, node_color: null}`), older ones wrote keys that newer ones drop; neither
 * is an edit. So absent values (null, '', [], {}) go, at any depth, and so do the defaults dbt
 * writes for keys nobody set. Keys that have an aspect of their own (tags, meta, materialized,
 * the relation's database, schema, alias and quoting, contract) are left to those aspects.
 * The whole config stays in node_version.config as dbt wrote it; this is only what is compared.
 */
const OWN_ASPECT_KEYS = new Set(['tags', 'meta', 'materialized', 'database', 'schema', 'alias', 'quoting', 'contract']);

/** Values dbt writes for config keys the user did not set, beside build-config's IMPLICIT_DEFAULTS. */
const WRITTEN_DEFAULTS: Readonly<Record<string, unknown>> = {
  enabled: true,
  access: 'protected',
  docs: { show: true },
  // dbt Fusion writes it on every node; it says how dbt parses, and only Fusion has it.
  static_analysis: 'baseline',
  // dbt Fusion writes it on every source: where the source's schema is read from.
  schema_origin: 'remote',
};

/** Keys whose lists are sets (grantees per privilege, the columns of a key): dbt 1.12 repeats their entries when it merges config levels. */
const SET_VALUED_KEYS = new Set(['grants', 'unique_key']);

/**
 * `options.jinja`: the values are Jinja as the user wrote it (unrendered_config), where `True`
 * and `true` are the same literal; dbt 1.x writes what the user typed, dbt Fusion lowercases.
 */
export function comparedConfig(config: unknown, options: { jinja?: boolean } = {}): string | null {
  if (config === null || config === undefined) return canonicalJson({});
  if (!isRecord(config)) return canonicalJson(config);
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    if (OWN_ASPECT_KEYS.has(key)) continue;
    const written = SET_VALUED_KEYS.has(key) ? withoutRepeats(value) : value;
    const present = withoutAbsent(options.jinja ? withJinjaLiteralsLowered(written) : written);
    if (present === undefined || isImplicitDefault(key, present) || isWrittenDefault(key, present)) continue;
    kept[key] = present;
  }
  return canonicalJson(kept);
}

/**
 * Declared columns compared: each column without the empty fields newer dbt versions add, and
 * without what a dbt release derives from the rest: `doc_blocks` (the doc() calls of the
 * description, which is compared), `config.meta` and `config.tags` (dbt 1.10+ mirrors the
 * column's meta and tags there), and meta entries and tags the node has itself (dbt Fusion
 * copies the node's meta and tags onto each column).
 */
export function comparedColumns(columns: unknown, node: { meta?: unknown; tags?: unknown } = {}): string | null {
  if (columns === null || columns === undefined) return null;
  if (!isRecord(columns)) return canonicalJson(withoutAbsent(columns) ?? {});
  const inherited = { meta: isRecord(node.meta) ? node.meta : {}, tags: new Set(Array.isArray(node.tags) ? node.tags : []) };
  const kept = Object.fromEntries(Object.entries(columns).map(([name, column]) => [name, isRecord(column) ? withoutDerived(column, inherited) : column]));
  return canonicalJson(withoutAbsent(kept) ?? {});
}

interface Inherited {
  meta: Record<string, unknown>;
  tags: ReadonlySet<unknown>;
}

function withoutDerived(column: Record<string, unknown>, inherited: Inherited): Record<string, unknown> {
  const { doc_blocks: _docBlocks, config, meta, tags, dimension, ...rest } = column;
  const mirrors = (key: string, value: unknown): boolean =>
    (key === 'meta' && canonicalJson(value) === canonicalJson(meta)) || (key === 'tags' && canonicalJson(value) === canonicalJson(tags));
  return {
    ...rest,
    meta: isRecord(meta)
      ? Object.fromEntries(
          Object.entries(meta).filter(([key, value]) => !Object.hasOwn(inherited.meta, key) || canonicalJson(value) !== canonicalJson(inherited.meta[key])),
        )
      : meta,
    tags: Array.isArray(tags) ? tags.filter((tag) => !inherited.tags.has(tag)) : tags,
    config: isRecord(config) ? Object.fromEntries(Object.entries(config).filter(([key, value]) => !mirrors(key, value))) : config,
    // dbt 1.12 writes a dimension's `is_partition: false`, the default, that Fusion leaves out.
    dimension: isRecord(dimension) && dimension.is_partition === false ? { ...dimension, is_partition: undefined } : dimension,
  };
}

/** `True`, `False`, `None` and their lowercase forms are one literal each in Jinja; strings inside quotes are left alone. */
function withJinjaLiteralsLowered(value: unknown): unknown {
  if (typeof value === 'string')
    return value.replace(/('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")|\b(True|False|None)\b/g, (match, quoted: string | undefined) => quoted ?? match.toLowerCase());
  if (Array.isArray(value)) return value.map(withJinjaLiteralsLowered);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withJinjaLiteralsLowered(item)]));
  return value;
}

/** The value with its absent parts dropped at every depth; undefined when nothing is left. */
export function withoutAbsent(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(withoutAbsent).filter((item) => item !== undefined);
    return items.length === 0 ? undefined : items;
  }
  if (isRecord(value)) {
    const kept = Object.entries(value).flatMap(([key, item]) => {
      const present = withoutAbsent(item);
      return present === undefined ? [] : [[key, present] as const];
    });
    return kept.length === 0 ? undefined : Object.fromEntries(kept);
  }
  return isAbsent(value) ? undefined : value;
}

function isWrittenDefault(key: string, value: unknown): boolean {
  return Object.hasOwn(WRITTEN_DEFAULTS, key) && canonicalJson(WRITTEN_DEFAULTS[key]) === canonicalJson(value);
}
