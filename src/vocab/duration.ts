import { AtticError } from '../errors.js';

/**
 * A span of time a user types: `90s`, `12h`, `30d`, `2w`, `6m`, `1y`. A month is 30 days and a
 * year 365 (restic's durations are calendar-free too), so `m` is a month, never a minute.
 * Used by retention (`--grace`, `keep-within`) and by relative times (`--since 7d`).
 */
const DURATION = /^(\d+)([shdwmy])$/;
const UNIT_MS: Record<string, number> = { s: 1000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000, m: 30 * 86_400_000, y: 365 * 86_400_000 };

/** The milliseconds `text` names, or null when it is no duration. */
export function durationMs(text: string): number | null {
  const match = DURATION.exec(text.trim());
  return match ? Number(match[1]) * UNIT_MS[match[2]!]! : null;
}

export function parseDuration(text: string, what: string): number {
  const ms = durationMs(text);
  if (ms === null) throw new AtticError('usage', `${what} takes a duration such as 90s, 12h, 30d, 2w, 6m (months) or 1y, not '${text}'.`);
  return ms;
}

/** The largest unit that divides it: `7d`, not `168h`. */
export function formatDurationShort(ms: number): string {
  for (const unit of ['y', 'm', 'w', 'd', 'h', 's']) if (ms % UNIT_MS[unit]! === 0) return `${ms / UNIT_MS[unit]!}${unit}`;
  return `${ms}ms`;
}
