/**
 * The valid name a mistyped one was most likely meant to be, as git's "did you mean": the
 * closest by edit distance, when it is close enough to be a typo rather than another word.
 */
export function nearestName(typed: string, valid: readonly string[]): string | null {
  return nearestNames(typed, valid, 1)[0] ?? null;
}

/** Up to `limit` valid names close enough to be what was meant, closest first (ties in the order given). */
export function nearestNames(typed: string, valid: readonly string[], limit: number): string[] {
  const within = Math.max(2, Math.floor(typed.length / 3));
  return [...new Set(valid)]
    .map((name) => ({ name, d: editDistance(typed.toLowerCase(), name.toLowerCase()) }))
    .filter((c) => c.d <= within)
    .sort((a, b) => a.d - b.d)
    .slice(0, limit)
    .map((c) => c.name);
}

/** Levenshtein distance, one row at a time; names here are a few dozen characters at most. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
