import { createHash } from 'node:crypto';

/**
 * Content-defined chunking (FastCDC with normalised chunking). Cut points depend on the bytes
 * around them, not on offsets, so an artifact that differs from a stored one in a few nodes
 * shares all but the chunks around the differences. The sizes and the gear table are part of the
 * archive format (open.ts): an archive keeps being cut as its FORMAT says, so that new captures
 * keep sharing chunks with old ones.
 */
export interface Chunking {
  min: number;
  average: number;
  max: number;
  /** A harder mask (2 bits more than the average's) before the average size, an easier one (2 fewer) after: it narrows the spread of sizes around the average. */
  hardMask: number;
  easyMask: number;
}

/** Masks for an average of 2^bits: the high bits carry the most history of a left-shifting gear hash. */
function chunking(min: number, bits: number, max: number): Chunking {
  return { min, average: 2 ** bits, max, hardMask: ~(2 ** (30 - bits) - 1) | 0, easyMask: ~(2 ** (34 - bits) - 1) | 0 };
}

/**
 * Format 1 cut at 64 KiB on average. Format 2 cuts at 32 KiB: an edited model costs the chunk
 * around it, and at 10,000 nodes x 200 runs (1 % of models edited per run) a run's new manifest
 * chunks were 866 kB gzipped at 64 KiB and 298 kB at 32 KiB, for twice the objects (a fresh
 * runner's `state` over S3: 2.5 s at 64 KiB, 4.1 s at 32 KiB for a 100 MB manifest, budget 5 s;
 * 16 KiB took it past the budget).
 */
export const CHUNKINGS: Readonly<Record<1 | 2, Chunking>> = {
  1: chunking(16 * 1024, 16, 256 * 1024),
  2: chunking(8 * 1024, 15, 128 * 1024),
};

/** The chunking of archives created now. */
export const CURRENT_CHUNKING = CHUNKINGS[2];
/** The largest chunk of any format: what a reader must be ready for. */
export const MAX_CHUNK = CHUNKINGS[1].max;

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
function cutPoint(bytes: Uint8Array, start: number, table: Int32Array, sizes: Chunking): number {
  const remaining = bytes.length - start;
  if (remaining <= sizes.min) return remaining;
  const limit = Math.min(remaining, sizes.max);
  const normal = Math.min(limit, sizes.average);
  const { hardMask, easyMask } = sizes;
  let hash = 0;
  let i = sizes.min;
  for (; i < normal; i++) {
    hash = ((hash << 1) + table[bytes[start + i]!]!) | 0;
    if ((hash & hardMask) === 0) return i + 1;
  }
  for (; i < limit; i++) {
    hash = ((hash << 1) + table[bytes[start + i]!]!) | 0;
    if ((hash & easyMask) === 0) return i + 1;
  }
  return limit;
}

/** Splits `bytes` into content-defined chunks (views, not copies). */
export function splitChunks(bytes: Uint8Array, sizes: Chunking = CURRENT_CHUNKING): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  const table = (gear ??= buildGearTable());
  for (let start = 0; start < bytes.length; ) {
    const length = cutPoint(bytes, start, table, sizes);
    chunks.push(bytes.subarray(start, start + length));
    start += length;
  }
  return chunks;
}
