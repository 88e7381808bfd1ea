/**
 * Readers for fields of artifact JSON, which we never trust to match a schema: each gives the
 * type asked for or null. A field that moved or vanished in some dbt version becomes NULL in the
 * store instead of a crash.
 */
export type JsonObject = Record<string, unknown>;

export function asObject(value: unknown): JsonObject | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as JsonObject) : null;
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

export function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** An integer, also from a numeric string ("42"), as some adapters report counts. */
export function int(value: unknown): number | null {
  const n = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : num(value);
  return n !== null && Number.isSafeInteger(n) ? n : null;
}

export function bool(value: unknown): boolean | null {
  return typeof value === 'boolean' ? value : null;
}

/** A string, or a number/boolean written as one: dbt's `version` and `message` are either. */
export function text(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

/** A JSON column: NULL for a missing or null field, the serialised value otherwise. */
export function json(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?$/;
const HAS_ZONE = /(Z|[+-]\d{2}(:?\d{2})?)$/;

/**
 * A timestamp DuckDB can cast (it takes nanoseconds and offsets). dbt writes UTC, so a time
 * without a zone gets 'Z' rather than the reader's local zone. Anything else is NULL.
 */
export function timestamp(value: unknown): string | null {
  if (typeof value !== 'string' || !ISO_TIME.test(value)) return null;
  const time = value.slice(11);
  return HAS_ZONE.test(time) ? value : `${value}Z`;
}

/** The members of `object` named in `keys` that are present, or null when none is. */
export function pick(object: JsonObject, keys: readonly string[]): JsonObject | null {
  const picked: JsonObject = {};
  let any = false;
  for (const key of keys) {
    if (object[key] === undefined) continue;
    picked[key] = object[key];
    any = true;
  }
  return any ? picked : null;
}
