import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CURRENT_CHUNKING, splitChunks } from '../../../src/archive/chunking.js';
import { sha256 } from '../../../src/vocab/index.js';
import { seededBytes } from '../../helpers/seeded-bytes.js';

describe('splitChunks', () => {
  it('covers the input exactly, within the size bounds', () => {
    const bytes = randomBytes(3_000_000);
    const chunks = splitChunks(bytes);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    for (const chunk of chunks.slice(0, -1)) {
      expect(chunk.length).toBeGreaterThanOrEqual(CURRENT_CHUNKING.min);
      expect(chunk.length).toBeLessThanOrEqual(CURRENT_CHUNKING.max);
    }
  });

  it('keeps an input smaller than the minimum whole, and an empty one empty', () => {
    expect(splitChunks(Buffer.from('small'))).toHaveLength(1);
    expect(splitChunks(Buffer.alloc(0))).toHaveLength(0);
  });

  it('re-synchronises after an insertion: only chunks near the edit change', () => {
    const original = seededBytes(2_000_000, 'insertion');
    const edited = Buffer.concat([original.subarray(0, 1_000_000), Buffer.from('an inserted node'), original.subarray(1_000_000)]);
    const before = new Set(splitChunks(original).map(sha256));
    const after = splitChunks(edited).map(sha256);
    const changed = after.filter((id) => !before.has(id));
    expect(changed.length).toBeLessThanOrEqual(2);
    expect(after.length).toBeGreaterThan(10);
  });
});
