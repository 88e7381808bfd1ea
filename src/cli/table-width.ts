import { cellWidth, visibleWidth, widestWord, wordsOf } from './wrap-text.js';

/**
 * How a table meets a terminal's width. Nothing is cut: an id cut short cannot be typed back,
 * and a message cut short loses what went wrong. A table too wide first leaves out the columns
 * it can spare (lowest `drop` first), then wraps its text columns down to their longest word
 * (or `min`), then wraps long ids (a node's unique_id) down to ID_WRAP; a table that still does
 * not fit is shown as records, a field a line (as psql's expanded mode).
 */
export interface Column {
  head: string;
  /** `id`: shown whole, on one line (a unique prefix, a sha, a node's unique_id). `text` wraps. */
  kind: 'id' | 'text';
  /** Left out, lowest first, when the table is too wide; absent: never left out. */
  drop?: number;
  /** Text: no narrower than this (a message in a column of a few words reads badly): records instead. */
  min?: number;
}

/** A cell's text; a list is of units that wrap as one (`25 success`, `3 error`). */
export type Cell = string | number | readonly string[];

export type TableLayout = { kind: 'table'; shown: number[]; widths: number[] } | { kind: 'records' };

/** Columns wrap down to their longest word, yet no further than this: a longer word is broken. */
const NARROWEST_TEXT = 16;
/** Ids wrap (within, never cut) only where text alone cannot give way, and no narrower than this. */
const ID_WRAP = 20;

export function planLayout(columns: readonly Column[], rows: readonly Cell[][], terminal: number): TableLayout {
  const natural = columns.map((column, i) => Math.max(cellWidth(column.head), ...rows.map((row) => cellWidth(cellText(row[i])))));
  const all = columns.map((_, i) => i);
  if (terminal <= 0) return { kind: 'table', shown: all, widths: natural };
  const shown = leaveOut(columns, natural, terminal);
  const widths = shown.map((i) => natural[i]!);
  narrow(
    widths,
    shown.map((i) =>
      textFloor(
        columns[i]!,
        rows.map((row) => row[i]),
        natural[i]!,
      ),
    ),
    terminal,
  );
  narrow(
    widths,
    shown.map((i, n) => (columns[i]!.kind === 'id' ? Math.min(natural[i]!, Math.max(visibleWidth(columns[i]!.head), ID_WRAP)) : widths[n]!)),
    terminal,
  );
  return tableWidth(widths) <= terminal ? { kind: 'table', shown, widths } : { kind: 'records' };
}

/** Each cell has a space either side, and there is one border more than there are columns. */
export function tableWidth(widths: readonly number[]): number {
  return widths.reduce((sum, w) => sum + w + 3, 1);
}

export function cellText(cell: Cell | undefined): string {
  if (cell === undefined) return '';
  return typeof cell === 'object' ? cell.join(' ') : String(cell);
}

export function cellUnits(cell: Cell | undefined): string[] {
  if (cell === undefined) return [];
  return typeof cell === 'object' ? [...cell] : wordsOf(String(cell));
}

/** The columns kept: the spare ones leave, lowest `drop` first, while the table is too wide. */
function leaveOut(columns: readonly Column[], natural: readonly number[], terminal: number): number[] {
  const shown = columns.map((_, i) => i);
  const spare = shown.filter((i) => columns[i]!.drop !== undefined).sort((a, b) => columns[a]!.drop! - columns[b]!.drop!);
  for (const i of spare) {
    if (tableWidth(shown.map((s) => natural[s]!)) <= terminal) break;
    shown.splice(shown.indexOf(i), 1);
  }
  return shown;
}

/** How narrow a column may wrap while ids keep their lines: text to its longest word (and header word, and `min`). */
function textFloor(column: Column, cells: readonly (Cell | undefined)[], natural: number): number {
  if (column.kind === 'id') return natural;
  const words = Math.min(NARROWEST_TEXT, widestWord(cells.flatMap(cellUnits)));
  return Math.min(natural, Math.max(widestWord(wordsOf(column.head)), words, column.min ?? 0));
}

/** Takes a column at a time from the widest text column still above its floor. */
function narrow(widths: number[], floors: readonly number[], terminal: number): void {
  while (tableWidth(widths) > terminal) {
    const widest = widths.reduce((best, w, i) => (w > floors[i]! && (best < 0 || w > widths[best]!) ? i : best), -1);
    if (widest < 0) return;
    widths[widest] = widths[widest]! - 1;
  }
}
