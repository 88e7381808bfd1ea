import { stringList } from './fingerprint-context.js';

/**
 * Fingerprints carried over from a manifest read before. Fingerprinting normalises every node's
 * SQL and hashes what it builds: at 10,000 nodes, about a third of reading a manifest. Yet a
 * node's fingerprint is a function of its definition (its version id covers every field the
 * recipe reads but `depends_on.macros`), of the macros it lists, of the macros those reach and
 * of the SQL dialect. So where the version, the listed macros and the dialect are as before and
 * no macro it reaches changed, the fingerprint is the one computed before, exactly.
 */

/** What a manifest read before said, as the store holds it. */
export interface PriorManifest {
  adapterType: string | null;
  /** Macro unique_id → macro version id (which covers its SQL and the macros it calls). */
  macros: ReadonlyMap<string, string>;
  /** Node unique_id → its version, fingerprint and `depends_on.macros` then. */
  nodes: ReadonlyMap<string, PriorNode>;
}

export interface PriorNode {
  nodeVersionId: string;
  fingerprint: string;
  macros: readonly string[];
}

/** This manifest's macros: unique_id → version id, and the macros each calls. */
export interface CurrentMacros {
  versions: ReadonlyMap<string, string>;
  calls: ReadonlyMap<string, readonly string[]>;
}

export type ReusedFingerprint = (uniqueId: string, nodeVersionId: string, listedMacros: unknown) => string | undefined;

export function fingerprintReuse(prior: PriorManifest, adapterType: string | null, current: CurrentMacros): ReusedFingerprint {
  if (prior.adapterType !== adapterType) return () => undefined;
  const stale = macrosReachingChange(prior.macros, current);
  return (uniqueId, nodeVersionId, listedMacros) => {
    const before = prior.nodes.get(uniqueId);
    if (!before || before.nodeVersionId !== nodeVersionId) return undefined;
    const listed = new Set(stringList(listedMacros));
    if (!sameSet(listed, before.macros)) return undefined;
    for (const id of listed) if (stale.has(id)) return undefined;
    return before.fingerprint;
  };
}

/**
 * Macros whose version differs from before (added and removed ones included), and every macro
 * that reaches one of them through the calls this manifest records. A macro outside this set
 * reaches only macros as they were, through calls as they were (its version covers its calls).
 */
function macrosReachingChange(before: ReadonlyMap<string, string>, current: CurrentMacros): Set<string> {
  const stale = new Set<string>();
  for (const [id, version] of current.versions) if (before.get(id) !== version) stale.add(id);
  for (const id of before.keys()) if (!current.versions.has(id)) stale.add(id);
  const callers = new Map<string, string[]>();
  for (const [caller, calls] of current.calls) {
    for (const callee of calls) {
      const known = callers.get(callee);
      if (known) known.push(caller);
      else callers.set(callee, [caller]);
    }
  }
  const pending = [...stale];
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    for (const caller of callers.get(id) ?? []) {
      if (!stale.has(caller)) {
        stale.add(caller);
        pending.push(caller);
      }
    }
  }
  return stale;
}

/** `before` as the store lists it, each macro once; one listed twice there counts as a change (no reuse). */
function sameSet(listed: ReadonlySet<string>, before: readonly string[]): boolean {
  return before.length === listed.size && before.every((id) => listed.has(id));
}
