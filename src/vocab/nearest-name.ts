/**
 * The valid name a mistyped one was most likely meant to be, as git's "did you mean": the
 * closest by edit distance, when it is close enough to be a typo rather than another word.
 */
export function nearestName(typed: string, valid: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const name of valid) {
    const d = editDistance(typed.toLowerCase(), name.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return best !== null && bestDistance <= Math.max(2, Math.floor(typed.length / 3)) ? best : null;
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
