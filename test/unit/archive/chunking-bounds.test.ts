import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CHUNKINGS, splitChunks } from '../../../src/archive/chunking.js';

/**
 * The edges of the cut rule (docs/archive-format.md): the harder mask holds up to the average
 * size, the easier one from there, and no chunk is longer than the maximum; in format 1 (16, 64,
 * 256 KiB) the masks are of 18 and 14 bits, in format 2 (8, 32, 128 KiB) of 17 and 13. Inputs
 * are built to meet a mask exactly at an edge, with the gear hash as the format defines it (the
 * table is SHA-256 of `dbtattic-gear-<i>`, its first 4 bytes little-endian), written out here,
 * not taken from the code under test.
 */
const GEAR = Array.from({ length: 256 }, (_, i) => createHash('sha256').update(`dbtattic-gear-${i}`).digest().readInt32LE(0));
const FORMATS = [
  { format: 1 as const, MIN_CHUNK: 16384, AVG_CHUNK: 65536, MAX_CHUNK: 262144, HARD: 0xffffc000 | 0, EASY: 0xfffc0000 | 0 },
  { format: 2 as const, MIN_CHUNK: 8192, AVG_CHUNK: 32768, MAX_CHUNK: 131072, HARD: 0xffff8000 | 0, EASY: 0xfff80000 | 0 },
];
const step = (hash: number, byte: number): number => ((hash << 1) + GEAR[byte]!) | 0;

describe.each(FORMATS)('format $format', ({ format, MIN_CHUNK, AVG_CHUNK, MAX_CHUNK, HARD, EASY }) => {
  /** The hash after byte `end - 1` of a chunk starting at 0 (the hash starts at MIN_CHUNK). */
  function hashUpTo(bytes: Uint8Array, end: number): number {
    let hash = 0;
    for (let i = MIN_CHUNK; i < end; i++) hash = step(hash, bytes[i]!);
    return hash;
  }

  /** A run of `fill` (which meets neither mask once it has filled the hash) of `length` bytes, with `x`, `y` at `at`, `at + 1` chosen so `want` holds for the hash after each. */
  function runWithPair(length: number, at: number, want: (afterX: number, afterY: number) => boolean): Buffer | null {
    for (let fill = 0; fill < 256; fill++) {
      const bytes = Buffer.alloc(length, fill);
      const before = hashUpTo(bytes, at);
      for (let x = 0; x < 256; x++) {
        const afterX = step(before, x);
        for (let y = 0; y < 256; y++) {
          if (!want(afterX, step(afterX, y))) continue;
          bytes[at] = x;
          bytes[at + 1] = y;
          return bytes;
        }
      }
    }
    return null;
  }

  /** Where the first cut falls, by the rule written out: null when no mask is met before the maximum. */
  function firstCut(bytes: Uint8Array): number | null {
    let hash = 0;
    for (let i = MIN_CHUNK; i < Math.min(bytes.length, MAX_CHUNK); i++) {
      hash = step(hash, bytes[i]!);
      if ((hash & (i < AVG_CHUNK ? HARD : EASY)) === 0) return i + 1;
    }
    return null;
  }

  describe('the cut rule at its edges', () => {
    it('switches to the easier mask at the average size exactly: a byte there that meets only it ends the chunk', () => {
      const bytes = runWithPair(MAX_CHUNK + 1000, AVG_CHUNK - 1, (afterX, afterY) => (afterX & HARD) !== 0 && (afterY & EASY) === 0 && (afterY & HARD) !== 0);
      expect(bytes).not.toBeNull();
      expect(firstCut(bytes!)).toBe(AVG_CHUNK + 1);
      expect(splitChunks(bytes!, CHUNKINGS[format])[0]!.length).toBe(AVG_CHUNK + 1);
    });

    it('never reads past the maximum: a byte just past it that would meet the mask does not lengthen the chunk', () => {
      const bytes = runWithPair(MAX_CHUNK + 1000, MAX_CHUNK - 1, (afterX, afterY) => (afterX & EASY) !== 0 && (afterY & EASY) === 0);
      expect(bytes).not.toBeNull();
      expect(firstCut(bytes!)).toBeNull();
      expect(splitChunks(bytes!, CHUNKINGS[format])[0]!.length).toBe(MAX_CHUNK);
    });
  });
});
