import { createHash, hash } from 'node:crypto';

/** An object id: lowercase hex SHA-256 of uncompressed bytes. */
export type ObjectId = string;

/** One-shot: a Hash object per call cost more than the hashing for the small inputs most calls have. */
export function sha256(bytes: Uint8Array | string): ObjectId {
  return hash('sha256', bytes, 'hex');
}

/** The same id, of bytes that arrive in pieces (hashed while the next piece is read). */
export interface PieceHasher {
  add(piece: Uint8Array): void;
  id(): ObjectId;
}

export function sha256OfPieces(): PieceHasher {
  const state = createHash('sha256');
  return { add: (piece) => void state.update(piece), id: () => state.digest('hex') };
}

/** Two-level fan-out as git does, so no directory grows past a few thousand entries. */
export function fanOut(id: ObjectId): string {
  return `${id.slice(0, 2)}/${id.slice(2)}`;
}

/**
 * JSON with object keys sorted at every depth: the same value always serialises to the same
 * bytes, so hashes of it are stable across runs and key orders. Node and macro version ids are
 * hashes of it, so its bytes are fixed: exactly `JSON.stringify` of a copy with keys inserted in
 * sorted order, where, as in every JS object, integer-like keys come first in numeric order.
 * Written directly rather than through that copy: ingest serialises every node of every
 * manifest, and the copy cost more than the hashing.
 */
export function canonicalJson(value: unknown): string {
  return writeCanonical(value) as string;
}

function writeCanonical(value: unknown): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    case 'bigint':
      return JSON.stringify(value); // throws, as JSON.stringify does
    default:
      return undefined; // undefined, functions and symbols: left out, as JSON.stringify does
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return JSON.stringify(sortKeys(value));
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + (writeCanonical(value[i]) ?? 'null');
    return `${out}]`;
  }
  let out = '{';
  for (const key of canonicalKeys(value as object)) {
    const member = writeCanonical((value as Record<string, unknown>)[key]);
    if (member !== undefined) out += `${(out.length > 1 ? ',' : '') + JSON.stringify(key)}:${member}`;
  }
  return `${out}}`;
}

/** Array-index keys: a JS object enumerates them first, in numeric order. */
const INDEX_KEY = /^(?:0|[1-9]\d{0,9})$/;

function isIndexKey(key: string): boolean {
  return INDEX_KEY.test(key) && Number(key) < 4294967295;
}

function canonicalKeys(object: object): string[] {
  const keys = Object.keys(object);
  // Index keys, if any, are enumerated first and already in order: only the rest needs sorting.
  let indexes = 0;
  while (indexes < keys.length && isIndexKey(keys[indexes]!)) indexes++;
  if (indexes === 0) return keys.sort();
  return [...keys.slice(0, indexes), ...keys.slice(indexes).sort()];
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  // Own properties, as JSON.parse makes them: an assigned `__proto__` would set the prototype.
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}
