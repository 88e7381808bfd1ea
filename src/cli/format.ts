import { createRequire } from 'node:module';
import type TableType from 'cli-table3';
import type { CliIo } from './io.js';
import { escapeControls } from './terminal-text.js';
import { fitColumns } from './table-width.js';

/** Human byte counts: 1.2 MB, 340 B. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return '-';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(value < 10 ? 2 : 1)} ${units[unit]}`;
}

export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '-';
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const minutes = Math.floor(seconds / 60);
  return minutes < 60 ? `${minutes}m${Math.round(seconds % 60)}s` : `${Math.floor(minutes / 60)}h${minutes % 60}m`;
}

/**
 * A table on a terminal; tab-separated lines elsewhere, which read well in CI logs and cut and
 * grep cleanly.
 */
export function printTable(io: CliIo, head: string[], rows: (string | number)[][]): void {
  if (!io.isTTY) {
    io.stdout([head, ...rows].map(tsvLine).join('\n') + '\n');
    return;
  }
  // Loaded on first use: most runs print to a pipe or not at all, and start-up matters here.
  const Table = createRequire(import.meta.url)('cli-table3') as typeof TableType;
  const cells = rows.map((row) => row.map(String));
  const colWidths = fitColumns(head, cells, io.columns);
  const table = new Table({
    head: head.map((h) => io.color.bold(h)),
    style: { head: [], border: [] },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
    ...(colWidths ? { colWidths } : {}),
  });
  // Cells may hold our colours; the terminal writer (io.ts) escapes every other control.
  table.push(...cells);
  io.stdout(`${table.toString()}\n`);
}

/** '2026-01-02T03:04:05.678Z' → '2026-01-02 03:04' (UTC), short enough for a table. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '-';
  return iso.replace('T', ' ').slice(0, 16);
}

export function tsvLine(row: (string | number)[]): string {
  return row.map(tsvField).join('\t');
}

/** One line per row, whatever a cell holds: tabs, newlines and backslashes escaped as in TSV, other controls as \\uXXXX. */
function tsvField(cell: string | number): string {
  return escapeControls(String(cell).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\r?\n/g, '\\n'));
}
