/**
 * A line diff of two versions of a node's code, as unified-diff lines with three lines of
 * context: what the Model page shows under each change. Pure. Longest common subsequence by
 * dynamic programming (a replaced line reads as removed, then added), bounded: code too long to compare that way is shown as removed and added.
 */
export type DiffLine = [' ' | '-' | '+' | '@', string];

const MAX_CELLS = 4_000_000;
const CONTEXT = 3;

export function codeDiff(before: string | null, after: string | null): DiffLine[] | null {
  if (before === after || (before ?? '') === (after ?? '')) return null;
  const a = before ? before.split('\n') : [];
  const b = after ? after.split('\n') : [];
  const lines = a.length * b.length > MAX_CELLS ? wholesale(a, b) : lcsDiff(a, b);
  return withContext(lines);
}

function wholesale(a: string[], b: string[]): DiffLine[] {
  return [...a.map((l): DiffLine => ['-', l]), ...b.map((l): DiffLine => ['+', l])];
}

function lcsDiff(a: string[], b: string[]): DiffLine[] {
  const width = b.length + 1;
  const table = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i * width + j] = a[i] === b[j] ? table[(i + 1) * width + j + 1]! + 1 : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) out.push([' ', a[i++]!]), j++;
    else if (j < b.length && (i === a.length || table[i * width + j + 1]! > table[(i + 1) * width + j]!)) out.push(['+', b[j++]!]);
    else out.push(['-', a[i++]!]);
  }
  return out;
}

/** Keeps changed lines and CONTEXT lines around them; a run of skipped lines becomes one `@` line. */
function withContext(lines: DiffLine[]): DiffLine[] {
  const keep = lines.map(() => false);
  lines.forEach(([op], k) => {
    if (op !== ' ') for (let n = Math.max(0, k - CONTEXT); n <= Math.min(lines.length - 1, k + CONTEXT); n++) keep[n] = true;
  });
  const out: DiffLine[] = [];
  let skipped = 0;
  lines.forEach((line, k) => {
    if (keep[k]) {
      if (skipped) out.push(['@', `${skipped} unchanged line${skipped === 1 ? '' : 's'}`]);
      skipped = 0;
      out.push(line);
    } else skipped++;
  });
  if (skipped) out.push(['@', `${skipped} unchanged line${skipped === 1 ? '' : 's'}`]);
  return out;
}
