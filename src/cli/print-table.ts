import { tsvLine } from './format.js';
import type { CliIo } from './io.js';
import { cellText, cellUnits, planLayout, type Cell, type Column } from './table-width.js';
import { escapeForTerminal } from './terminal-text.js';
import { visibleWidth, wrapText, wrapUnits } from './wrap-text.js';

export type { Cell, Column } from './table-width.js';

type Fit = Pick<Column, 'drop' | 'min'>;

/** A column of text that wraps; `id(…)` for one shown whole. */
export function text(head: string, fit: Fit = {}): Column {
  return { head, kind: 'text', ...fit };
}

export function id(head: string, fit: Fit = {}): Column {
  return { head, kind: 'id', ...fit };
}

/** A column of formatTime's times, which read badly broken after the date. */
export function time(head: string, fit: Fit = {}): Column {
  return { head, kind: 'text', min: '2026-01-02 03:04Z'.length, ...fit };
}

/**
 * A table on a terminal, fitted to its width (table-width.ts); tab-separated lines elsewhere,
 * every column, which read well in CI logs and cut and grep cleanly.
 */
export function printTable(io: CliIo, columns: readonly (Column | string)[], rows: readonly Cell[][]): void {
  const heads = columns.map((c) => (typeof c === 'string' ? text(c) : c));
  if (!io.isTTY) {
    io.stdout(`${[heads.map((c) => c.head), ...rows.map((row) => row.map(cellText))].map(tsvLine).join('\n')}\n`);
    return;
  }
  // Measured as the terminal will show them: an artifact's controls escaped, tabs as a space.
  const cells = rows.map((row) => heads.map((_, i) => shownCell(row[i])));
  const layout = planLayout(heads, cells, io.columns);
  if (layout.kind === 'records') return printRecords(io, heads, cells);
  const left = heads.filter((_, i) => !layout.shown.includes(i)).map((c) => c.head);
  printGrid(
    io,
    layout.shown.map((i) => heads[i]!),
    cells.map((row) => layout.shown.map((i) => row[i]!)),
    layout.widths,
  );
  if (left.length > 0) io.stderr(`${wrapText(`(left out to fit ${io.columns} columns: ${left.join(', ')}; --json has them)`, io.columns).join('\n')}\n`);
}

/**
 * Box-drawn, as cli-table3 drew it. cli-table3 is gone: it took 0.33 s for one cell of 25
 * lines, 2.3 s for 50 and 17.7 s for 100 (a query of run_results args), and never ended over
 * five rows of 300.
 */
function printGrid(io: CliIo, columns: readonly Column[], rows: readonly Cell[][], widths: readonly number[]): void {
  const rule = (left: string, middle: string, right: string): string => `${left}${widths.map((w) => '─'.repeat(w + 2)).join(middle)}${right}`;
  const lines = (cells: string[][]): string[] => {
    const height = Math.max(1, ...cells.map((cell) => cell.length));
    return Array.from({ length: height }, (_, n) => `│${cells.map((cell, i) => ` ${pad(cell[n] ?? '', widths[i]!)} `).join('│')}│`);
  };
  const head = lines(columns.map((c, i) => wrapText(c.head, widths[i]!).map((line) => io.color.bold(line))));
  const body = rows.flatMap((row) => lines(row.map((cell, i) => wrapCell(cell, widths[i]!))));
  io.stdout(`${[rule('┌', '┬', '┐'), ...head, ...body, rule('└', '┴', '┘')].join('\n')}\n`);
}

function pad(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - visibleWidth(text)));
}

/** Each row as lines of `field  value`, a blank line between rows: for a table no terminal width holds. */
function printRecords(io: CliIo, columns: readonly Column[], rows: readonly Cell[][]): void {
  const keyWidth = Math.max(...columns.map((c) => visibleWidth(c.head))) + 2;
  const valueWidth = Math.max(10, io.columns - keyWidth);
  const blocks = rows.map((row) =>
    columns.flatMap((column, i) =>
      wrapCell(row[i]!, valueWidth).map((line, n) => `${n === 0 ? io.color.bold(column.head.padEnd(keyWidth)) : ' '.repeat(keyWidth)}${line}`.trimEnd()),
    ),
  );
  io.stdout(`${blocks.map((lines) => lines.join('\n')).join('\n\n')}\n`);
}

function wrapCell(cell: Cell, width: number): string[] {
  return typeof cell === 'object' ? wrapUnits(cellUnits(cell), width) : wrapText(String(cell), width);
}

function shownCell(cell: Cell | undefined): Cell {
  const shown = (value: string): string => escapeForTerminal(value.replace(/^\r/, '\\u000d')).replace(/\t/g, ' ');
  if (cell === undefined) return '';
  return typeof cell === 'object' ? cell.map(shown) : shown(String(cell));
}
