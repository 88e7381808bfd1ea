import { createHash } from 'node:crypto';

/** An object id: lowercase hex SHA-256 of uncompressed bytes. */
export type ObjectId = string;


export function sha256(bytes: Uint8Array | string): ObjectId {
  return createHash('sha256').update(bytes).digest('hex');
}


/** Two-level fan-out as git does, so no directory grows past a few thousand entries. */
export function fanOut(id: ObjectId): string {
  return `${id.slice(0, 2)}/${id.slice(2)}`;
}

/**
 * JSON with object keys sorted at every depth: the same value always serialises to the same
 * bytes, so hashes of it are stable across runs and key orders.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  }
  return sorted;
}
