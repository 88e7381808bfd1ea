import type { QuerySink } from '../store/index.js';
import { tsvLine } from './format.js';
import type { CliIo } from './io.js';
import { printTable } from './print-table.js';

export type QueryFormat = 'table' | 'json' | 'csv' | 'markdown';

/** A terminal table needs its widths before printing: it is printed in pages of this many rows. */
const TABLE_PAGE = 1000;

/**
 * Writes a query's rows as they arrive, in the chosen format, waiting for stdout to drain
 * between chunks so a fast query into a slow pipe does not pile up in memory.
 */
export function querySink(io: CliIo, format: QueryFormat): QuerySink & { end(): void } {
  let names: string[] = [];
  let first = true;
  let page: string[][] = [];
  const drained = (): Promise<void> => io.drain?.() ?? Promise.resolve();
  const cells = (rows: Record<string, unknown>[]): string[][] => rows.map((row) => names.map((name) => cellText(row[name])));
  // Off a terminal a table is tab-separated lines: the header once, then rows as they come.
  const flushPage = (): void => {
    if (!io.isTTY) io.stdout([...(first ? [names] : []), ...page].map((row) => `${tsvLine(row)}\n`).join(''));
    else if (page.length > 0 || first) printTable(io, names, page);
    page = [];
    first = false;
  };
  return {
    columns(columns) {
      names = columns.map((c) => c.name);
      if (format === 'csv') io.stdout(`${names.map(csvField).join(',')}\n`);
      if (format === 'markdown') io.stdout(`${markdownLine(names)}\n|${names.map(() => '---').join('|')}|\n`);
    },
    async rows(rows) {
      if (rows.length === 0) return;
      switch (format) {
        case 'json':
          io.stdout(`${first ? '[\n' : ',\n'}${rows.map((row) => indent(JSON.stringify(row, null, 2))).join(',\n')}`);
          first = false;
          break;
        case 'csv':
          io.stdout(
            cells(rows)
              .map((row) => `${row.map(csvField).join(',')}\n`)
              .join(''),
          );
          break;
        case 'markdown':
          io.stdout(
            cells(rows)
              .map((row) => `${markdownLine(row)}\n`)
              .join(''),
          );
          break;
        case 'table':
          page.push(...cells(rows));
          if (page.length >= TABLE_PAGE || !io.isTTY) flushPage();
          break;
      }
      await drained();
    },
    end() {
      if (format === 'json') io.stdout(first ? '[]\n' : '\n]\n');
      if (format === 'table') flushPage();
    },
  };
}

function indent(text: string): string {
  return text.replace(/^/gm, '  ');
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function csvField(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function markdownLine(cells: string[]): string {
  const escapeCell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
  return `| ${cells.map(escapeCell).join(' | ')} |`;
}
