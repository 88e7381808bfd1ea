/**
 * Reads back a table as a terminal showed it, in either of its layouts: a grid (`│ a │ b │`,
 * a cell's wrapped lines beneath it) or records (`field  value` lines, a blank line between
 * records). Each row maps a column's head to its lines, joined by a space; `keyHead` names the
 * column whose cell is never empty, which tells a row's first line from its continuations.
 */
export type PrintedRow = Record<string, string>;

export function readPrintedTable(shown: string, heads: readonly string[], keyHead: string): PrintedRow[] {
  const lines = shown.split('\n');
  const header = lines.findIndex((line) => line.startsWith('│') && cellsOf(line)[0] === heads[0]);
  return header >= 0 ? readGrid(lines.slice(header), keyHead) : readRecords(lines, heads);
}

function cellsOf(line: string): string[] {
  return line
    .split('│')
    .slice(1, -1)
    .map((cell) => cell.trim());
}

function readGrid(lines: string[], keyHead: string): PrintedRow[] {
  const [first, ...rest] = lines.filter((line) => line.startsWith('│')).map(cellsOf);
  const key = first!.indexOf(keyHead);
  const head: string[][] = [first!];
  const rows: string[][][] = [];
  // A head may wrap too: its lines come before the first row's, with the key's cell empty.
  for (const cells of rest) {
    if (cells[key] !== '') rows.push([cells]);
    else (rows.at(-1) ?? head).push(cells);
  }
  const heads = joinColumns(head);
  return rows.map((row) => Object.fromEntries(joinColumns(row).map((text, i) => [heads[i]!, text])));
}

function joinColumns(lines: string[][]): string[] {
  const width = Math.max(0, ...lines.map((cells) => cells.length));
  return Array.from({ length: width }, (_, i) =>
    lines
      .map((cells) => cells[i] ?? '')
      .filter(Boolean)
      .join(' '),
  );
}

function readRecords(lines: string[], heads: readonly string[]): PrintedRow[] {
  const rows: PrintedRow[] = [];
  let field: string | null = null;
  for (const line of lines) {
    const head = heads.find((h) => line.startsWith(`${h} `) || line === h);
    if (head !== undefined) {
      if (head === heads[0]) rows.push({});
      field = head;
      rows.at(-1)![head] = line.slice(head.length).trim();
    } else if (field && rows.length > 0 && line.trim() !== '') {
      rows.at(-1)![field] = `${rows.at(-1)![field]} ${line.trim()}`.trim();
    }
  }
  return rows;
}
