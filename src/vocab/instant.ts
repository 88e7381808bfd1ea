/**
 * Instants as dbt and dbtattic write them, compared as instants, never as text. One time is
 * written `…25.044509Z` by one dbt, `…25.044509+00:00` by another, `…25.044509` (no zone, UTC)
 * by old ones and with nanoseconds by Fusion; as text, `…25Z` sorts after `…25.5Z`.
 */
const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9})\d*)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** Nanoseconds since the epoch, or null for anything that is not an ISO-8601 instant. */
export function parseInstant(text: string | null | undefined): bigint | null {
  const m = text ? ISO_INSTANT.exec(text.trim()) : null;
  if (!m) return null;
  const [, y, mo, d, h, mi, s = '0', fraction = '', zone = 'Z'] = m;
  const millis = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (!Number.isFinite(millis)) return null;
  const nanos = BigInt(fraction.padEnd(9, '0'));
  return BigInt(millis) * 1_000_000n + nanos - zoneOffsetNanos(zone);
}

function zoneOffsetNanos(zone: string): bigint {
  if (zone.toUpperCase() === 'Z') return 0n;
  const sign = zone.startsWith('-') ? -1n : 1n;
  const digits = zone.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0');
  return sign * BigInt(minutes) * 60_000_000_000n;
}

/**
 * Orders two texts by the instants they name. Total: an unparseable or missing time sorts
 * before every instant, and two of those (or two spellings of one instant) tie, for the caller
 * to break.
 */
export function compareInstants(a: string | null | undefined, b: string | null | undefined): number {
  const x = parseInstant(a);
  const y = parseInstant(b);
  if (x === null || y === null) return (x === null ? 0 : 1) - (y === null ? 0 : 1);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The instant in the one form DuckDB and every reader take alike: UTC, `Z`, up to nanoseconds. */
export function normaliseInstant(text: string | null | undefined): string | null {
  const nanos = parseInstant(text);
  if (nanos === null) return null;
  const millis = nanos / 1_000_000n - (nanos % 1_000_000n < 0n ? 1n : 0n);
  const iso = new Date(Number(millis)).toISOString().slice(0, 19);
  const fraction = (((nanos % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${iso}${fraction ? `.${fraction}` : ''}Z`;
}

/** Plain code-unit order for ids (hex, time-ordered): the same on every machine and locale. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
