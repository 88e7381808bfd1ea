import { parseInstant } from '../vocab/index.js';
import { escapeControls } from './terminal-text.js';

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
 * '2026-01-02T03:04:05.678Z' → '2026-01-02 03:04Z', short enough for a table, its zone said as
 * the report says it (assets/report/format.js). A time written without a zone is dbt's UTC.
 */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '-';
  const nanos = parseInstant(iso);
  return nanos === null ? iso : `${new Date(Number(nanos / 1_000_000n)).toISOString().replace('T', ' ').slice(0, 16)}Z`;
}

export function tsvLine(row: readonly (string | number)[]): string {
  return row.map(tsvField).join('\t');
}

/** One line per row, whatever a cell holds: tabs, newlines and backslashes escaped as in TSV, other controls as \\uXXXX. */
function tsvField(cell: string | number): string {
  return escapeControls(String(cell).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\r?\n/g, '\\n'));
}
