import { sha256 } from '../vocab/hash.js';
import { isRecord } from './build-config.js';
import { dialectFor, type SqlDialect } from './sql-dialect.js';
import { normalizeSql } from './sql-tokens.js';

/**
 * What fingerprinting one node needs from the rest of its manifest: the dialect and the macros.
 * A context belongs to one manifest and remembers each macro's hash, so a macro that a thousand
 * models call is normalised once.
 */

/** The macro fields read; a manifest whose macros were stripped simply has none. */
export interface MacroInput {
  macro_sql?: string | null;
  depends_on?: { macros?: readonly string[] | null } | null;
}

/** The manifest fields read: `metadata.adapter_type` and `macros`. */
export interface FingerprintManifest {
  metadata?: { adapter_type?: string | null } | null;
  macros?: Readonly<Record<string, MacroInput>> | null;
}

export interface FingerprintContext {
  readonly dialect: SqlDialect;
  /** sha256 of the macro's SQL normal form; null when the manifest does not hold the macro. */
  macroHash(uniqueId: string): string | null;
  /** The macros a macro calls, as dbt recorded them in `depends_on.macros`. */
  macroCalls(uniqueId: string): readonly string[];
}

export function createFingerprintContext(manifest: FingerprintManifest): FingerprintContext {
  const dialect = dialectFor(manifest.metadata?.adapter_type);
  const macros = isRecord(manifest.macros) ? manifest.macros : {};
  const hashes = new Map<string, string | null>();
  const lookUp = (uniqueId: string): MacroInput | undefined => (Object.hasOwn(macros, uniqueId) ? macros[uniqueId] : undefined);
  return {
    dialect,
    macroHash(uniqueId) {
      let hash = hashes.get(uniqueId);
      if (hash === undefined) {
        const sql = lookUp(uniqueId)?.macro_sql;
        hash = typeof sql === 'string' ? sha256(normalizeSql(sql, dialect)) : null;
        hashes.set(uniqueId, hash);
      }
      return hash;
    },
    macroCalls(uniqueId) {
      return stringList(lookUp(uniqueId)?.depends_on?.macros);
    },
  };
}

/**
 * Every macro reachable from `calls` through `depends_on.macros`, sorted, each with its hash:
 * a changed macro then changes every node that reaches it, and no other. Cycles (recursive
 * macros) are visited once.
 */
export function collectMacroClosure(calls: unknown, context: FingerprintContext): [string, string | null][] {
  const seen = new Set<string>();
  const pending = [...stringList(calls)];
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    if (seen.has(id)) continue;
    seen.add(id);
    pending.push(...context.macroCalls(id));
  }
  return [...seen].sort().map((id) => [id, context.macroHash(id)]);
}

export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
