/**
 * Column widths that fit a table into the terminal: the widest columns give way first, down to
 * their header's width (or 6), then all of them, and cli-table3 cuts what no longer fits with
 * an ellipsis. Null when the table fits as it is or the width is unknown.
 */
export function fitColumns(head: string[], rows: string[][], columns: number): number[] | null {
  if (columns <= 0) return null;
  const widths = head.map((h, i) => Math.max(visibleWidth(h), ...rows.map((row) => visibleWidth(row[i] ?? ''))));
  if (tableWidth(widths) <= columns) return null;
  // Headers keep their width while something else can give; past that, every column gives.
  shrink(widths, head.map((h, i) => Math.min(widths[i]!, Math.max(visibleWidth(h), 6))), columns);
  shrink(widths, widths.map((w) => Math.min(w, 3)), columns);
  return widths.map((w) => w + 2);
}

/** Each cell has a space either side, and there is one border more than there are columns. */
function tableWidth(widths: number[]): number {
  return widths.reduce((sum, w) => sum + w + 2, 0) + widths.length + 1;
}

/** Takes a character at a time from the widest column still above its floor. */
function shrink(widths: number[], floors: number[], columns: number): void {
  while (tableWidth(widths) > columns) {
    const widest = widths.reduce((best, w, i) => (w > floors[i]! && (best < 0 || w > widths[best]!) ? i : best), -1);
    if (widest < 0) return;
    widths[widest] = widths[widest]! - 1;
  }
}

function visibleWidth(cell: string): number {
  // eslint-disable-next-line no-control-regex
  return Math.max(...cell.replace(/\x1b\[[0-9;]*m/g, '').split('\n').map((line) => [...line].length));
}
