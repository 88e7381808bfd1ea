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

/** The short form shown in tables: long enough to be unique in practice, short enough to type. */
export function shortId(id: string, length = 8): string {
  return id.slice(0, length);
}
