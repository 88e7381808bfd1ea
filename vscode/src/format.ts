/** How the extension writes the store's numbers and times; pure, shared by views and documents. */

/** Seconds as dbt users read runtimes: 0.27s, 12.50s, 3m 05s. */
export function formatSeconds(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '-';
  if (seconds < 60) return `${seconds.toFixed(2)}s`;
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}m ${String(whole % 60).padStart(2, '0')}s`;
}

/** An ISO time as `2024-06-03 13:35` (UTC, as the CLI prints times). */
export function formatWhen(iso: string | null | undefined): string {
  if (!iso) return '-';
  const date = new Date(iso);
  // As the CLI and the report print a time (issue 44 item 11): UTC, to the minute, zone said.
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 16).replace('T', ' ')}Z`;
}

/** The last run against the median of the runs before it: ↑ slower, ↓ faster, → within 10 %. */
export function formatTrend(ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return 'no trend yet';
  const arrow = ratio > 1.1 ? '↑' : ratio < 0.9 ? '↓' : '→';
  return `trend ${arrow}${ratio.toFixed(2)}×`;
}

export function firstLine(text: string | null | undefined): string {
  return (text ?? '').trim().split(/\r?\n/)[0] ?? '';
}

/** Rows as a plain-text table with aligned columns, for read-only documents. */
export function alignedTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return `${[line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n')}\n`;
}
