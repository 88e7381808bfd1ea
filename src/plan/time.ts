/** Times in plans are microseconds since the epoch; they print as ISO 8601 with six decimals. */
export function isoFromMicros(us: number | null): string | null {
  if (us === null || !Number.isFinite(us)) return null;
  const ms = Math.floor(us / 1000);
  const micros = String(((us % 1_000_000) + 1_000_000) % 1_000_000).padStart(6, '0');
  return `${new Date(ms).toISOString().slice(0, 19)}.${micros}Z`;
}

const PERIOD_US: Record<string, number> = { minute: 60e6, hour: 3600e6, day: 86400e6 };

/** count × period in microseconds; null for a period dbt does not define. */
export function periodMicros(count: number | null, period: string | null): number | null {
  const unit = period === null ? undefined : PERIOD_US[period];
  return count === null || unit === undefined || count < 0 ? null : count * unit;
}
