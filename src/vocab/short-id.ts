import { AtticError } from '../errors.js';

/**
 * Resolves a unique prefix the way git does: an exact match wins, one prefix match is taken,
 * several are refused with the candidates listed.
 */
export function resolvePrefix(prefix: string, candidates: Iterable<string>, what: string, whatPlural = `${what}s`): string {
  const matches = new Set<string>();
  for (const candidate of candidates) {
    if (candidate === prefix) return candidate;
    if (candidate.startsWith(prefix)) matches.add(candidate);
  }
  if (matches.size === 1) return [...matches][0]!;
  if (matches.size === 0) {
    throw new AtticError('not-found', `No ${what} matches '${prefix}'. List them with 'dbtattic history'.`);
  }
  const listed = [...matches].sort();
  throw new AtticError(
    'ambiguous-id',
    `'${prefix}' matches ${listed.length} ${whatPlural}: ${listed.slice(0, 10).join(', ')}${listed.length > 10 ? ', …' : ''}. Give more characters.`,
    { candidates: listed },
  );
}

/** A fixed-length short form, for ids that are not dbt's (git shas, fingerprints). */
export function shortId(id: string, length = 8): string {
  return id.slice(0, length);
}

export const MIN_PREFIX = 8;

/**
 * Abbreviates ids as git does: each to its shortest prefix, at least `min` long, that no other
 * id of `all` starts with, so whatever is printed can be typed back. Ids of dbt before 0.19 all
 * start `content-` and dbt Fusion's UUIDv7 ids share their first 8 characters for runs minutes
 * apart: a fixed length would print the same text for different runs.
 */
export function uniquePrefixes(all: Iterable<string>, min = MIN_PREFIX): (id: string) => string {
  const sorted = [...new Set(all)].sort();
  return (id) => {
    const at = lowerBound(sorted, id);
    const before = sorted[at - 1];
    const after = sorted[sorted[at] === id ? at + 1 : at];
    const shared = Math.max(commonPrefixLength(id, before), commonPrefixLength(id, after));
    return id.slice(0, Math.max(min, shared + 1));
  };
}

function lowerBound(sorted: readonly string[], id: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function commonPrefixLength(a: string, b: string | undefined): number {
  if (b === undefined) return 0;
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}
