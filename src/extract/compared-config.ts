import { canonicalJson } from '../vocab/hash.js';
import { isAbsent, isImplicitDefault, isRecord } from './build-config.js';

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

export function comparedConfig(config: unknown): string | null {
  if (config === null || config === undefined) return canonicalJson({});
  if (!isRecord(config)) return canonicalJson(config);
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    if (OWN_ASPECT_KEYS.has(key)) continue;
    const present = withoutAbsent(value);
    if (present === undefined || isImplicitDefault(key, present) || isWrittenDefault(key, present)) continue;
    kept[key] = present;
  }
  return canonicalJson(kept);
}

/** Declared columns compared: each column without the empty fields newer dbt versions add. */
export function comparedColumns(columns: unknown): string | null {
  if (columns === null || columns === undefined) return null;
  return canonicalJson(withoutAbsent(columns) ?? {});
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
