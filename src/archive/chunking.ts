import { createHash } from 'node:crypto';

/**
 * Content-defined chunking (FastCDC with normalised chunking). Cut points depend on the bytes
 * around them, not on offsets, so an artifact that differs from a stored one in a few nodes
 * shares all but the chunks around the differences. The parameters and the gear table are part
 * of the archive format: changing them changes where cuts fall (restores still work, but new
 * captures would share fewer chunks with old ones).
 */
export const MIN_CHUNK = 16 * 1024;
export const AVG_CHUNK = 64 * 1024;
export const MAX_CHUNK = 256 * 1024;

// 2^16 = AVG_CHUNK: a harder mask (18 bits) before the average size, an easier one (14) after,
// which narrows the spread of chunk sizes around the average. High bits carry the most history
// of a left-shifting gear hash.
const MASK_HARD = 0xffffc000 | 0;
const MASK_EASY = 0xfffc0000 | 0;

// Built at the first split, not when the module loads: every command loads it (the archive's
// index does), few split anything, and 256 hashes are a millisecond of each start-up.
let gear: Int32Array | undefined;

function buildGearTable(): Int32Array {
  const table = new Int32Array(256);
  for (let i = 0; i < 256; i++) {
    table[i] = createHash('sha256').update(`dbtattic-gear-${i}`).digest().readInt32LE(0);
  }
  return table;
}

/** Returns the length of the chunk that starts at `start`. */
function cutPoint(bytes: Uint8Array, start: number, table: Int32Array): number {
  const remaining = bytes.length - start;
  if (remaining <= MIN_CHUNK) return remaining;
  const limit = Math.min(remaining, MAX_CHUNK);
  const normal = Math.min(limit, AVG_CHUNK);
  let hash = 0;
  let i = MIN_CHUNK;
  for (; i < normal; i++) {
    hash = ((hash << 1) + table[bytes[start + i]!]!) | 0;
    if ((hash & MASK_HARD) === 0) return i + 1;
  }
  for (; i < limit; i++) {
    hash = ((hash << 1) + table[bytes[start + i]!]!) | 0;
    if ((hash & MASK_EASY) === 0) return i + 1;
  }
  return limit;
}

/** Splits `bytes` into content-defined chunks (views, not copies). */
export function splitChunks(bytes: Uint8Array): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  const table = (gear ??= buildGearTable());
  for (let start = 0; start < bytes.length; ) {
    const length = cutPoint(bytes, start, table);
    chunks.push(bytes.subarray(start, start + length));
    start += length;
  }
  return chunks;
}
