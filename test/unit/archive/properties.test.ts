import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { CHUNKINGS, splitChunks } from '../../../src/archive/chunking.js';
import { compareArtifactRecords, putArtifactRecord, putBlob, readBlob, type ArtifactRecord } from '../../../src/archive/index.js';
import { listArchivedInvocations } from '../../../src/state/index.js';
import { newestPerArtifact } from '../../../src/store/ingest/ingest.js';

/**
 * Rules of the archive that hold for every input, checked on generated ones (fast-check; a
 * failure prints the smallest input found). Few runs each: the inputs are large.
 */

/** Bytes from a seed: SHA-256 in counter mode, so a case is reproducible from its seed. */
function bytesFrom(seed: number, length: number): Buffer {
  const blocks: Buffer[] = [];
  for (let i = 0; blocks.length * 32 < length; i++) blocks.push(createHash('sha256').update(`${seed}-${i}`).digest());
  return Buffer.concat(blocks).subarray(0, length);
}

const hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Where each chunk starts in the input it was cut from. */
function chunkStarts(chunks: readonly Uint8Array[]): number[] {
  const starts: number[] = [];
  let offset = 0;
  for (const chunk of chunks) {
    starts.push(offset);
    offset += chunk.length;
  }
  return starts;
}

describe('chunking', () => {
  // How soon the cuts meet again is chance, not a rule: an insertion can remove a cut within the
  // gear hash's 32-byte window, and the cuts after it depend on where chunks start (the minimum
  // size is skipped), so now and then three or four chunks are new (seed 458333070, 1 byte at
  // 311,429 of 700,000: 4, kept below as an example). The chunking test checks a fixed edit's few new chunks.
  it('re-synchronises after an insertion anywhere: chunks before it are kept, and from the first cut the edit shares, every chunk', () => {
    fc.assert(
      fc.property(fc.integer(), fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 300 }), (seed, at, inserted) => {
        const original = bytesFrom(seed, 700_000);
        const cut = at % original.length;
        const edited = Buffer.concat([original.subarray(0, cut), inserted, original.subarray(cut)]);
        const before = splitChunks(original);
        const after = splitChunks(edited);
        // Every chunk that ends before the insertion is exactly as it was.
        let end = 0;
        for (const [i, chunk] of before.entries()) {
          end += chunk.length;
          if (end > cut) break;
          expect(hex(after[i]!)).toBe(hex(chunk));
        }
        // A cut is decided by the bytes since the last one alone: once the edited input is cut
        // where the original was (shifted by the insertion), the rest is chunked as before.
        const startsBefore = chunkStarts(before);
        const startsAfter = chunkStarts(after);
        const shifted = startsBefore.map((start) => (start > cut ? start + inserted.length : -1));
        const j = startsAfter.findIndex((start) => start > cut + inserted.length - 1 && shifted.includes(start));
        if (j >= 0) expect(after.slice(j).map(hex)).toEqual(before.slice(shifted.indexOf(startsAfter[j]!)).map(hex));
      }),
      { numRuns: 12, examples: [[458333070, 66111429, Uint8Array.from([94])]] },
    );
  });

  it('covers the input exactly, every chunk but the last within the size bounds', () => {
    fc.assert(
      fc.property(fc.integer(), fc.nat({ max: 900_000 }), fc.nat({ max: 255 }), (seed, length, runOf) => {
        // Half random, half one repeated byte: both the hash cut and the maximum cut happen.
        const bytes = Buffer.concat([bytesFrom(seed, length), Buffer.alloc(length, runOf)]);
        // Format 1: 16 to 256 KiB; format 2: 8 to 128 KiB.
        for (const [format, min, max] of [
          [1, 16 * 1024, 256 * 1024],
          [2, 8 * 1024, 128 * 1024],
        ] as const) {
          const chunks = splitChunks(bytes, CHUNKINGS[format]);
          expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
          for (const chunk of chunks.slice(0, -1)) expect(chunk.length).toBeGreaterThanOrEqual(min);
          for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(max);
        }
      }),
      { numRuns: 12 },
    );
  });
});

describe('blobs', () => {
  it('restore the exact bytes stored, whatever they are', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 2_000 }),
          fc.tuple(fc.integer(), fc.nat({ max: 400_000 })).map(([seed, n]) => new Uint8Array(bytesFrom(seed, n))),
        ),
        async (bytes) => {
          const backend = new MemBackend();
          const put = await putBlob(backend, bytes);
          expect(put.id).toBe(hex(bytes));
          expect((await readBlob(backend, put.id)).equals(Buffer.from(bytes))).toBe(true);
        },
      ),
      { numRuns: 30 },
    );
  });
});

/** Records of one invocation's manifest; times in dbt's one usual form, so text order is time order. */
const recordArb = fc
  .record({
    generated: fc.nat({ max: 5 }),
    captured: fc.nat({ max: 5 }),
    content: fc.nat({ max: 1_000 }),
  })
  .map(
    ({ generated, captured, content }): ArtifactRecord => ({
      kind: 'artifact',
      format: 1,
      invocation_id: 'inv',
      invocation_id_source: 'metadata',
      artifact: 'manifest',
      sha256: hex(Buffer.from(String(content))),
      size: 1,
      dbt_schema_version: null,
      dbt_version: null,
      generated_at: `2026-01-02T10:0${generated}:00.000000Z`,
      captured_at: `2026-01-02T11:0${captured}:00.000Z`,
      capture_id: `c${captured}`,
      phase: 'post',
    }),
  );

const distinctRecords = fc.uniqueArray(recordArb, { minLength: 1, maxLength: 8, selector: (r) => r.sha256 });

describe('the newest record', () => {
  it('is a total order: antisymmetric, transitive, and equal only for the same record', () => {
    fc.assert(
      // Equal records are rare when drawn independently: draw some as copies.
      fc.property(recordArb, fc.oneof(recordArb, fc.constant(null)), recordArb, (a, maybeB, c) => {
        const b = maybeB ?? { ...a };
        expect(Math.sign(compareArtifactRecords(a, b)) + Math.sign(compareArtifactRecords(b, a))).toBe(0);
        if (compareArtifactRecords(a, b) <= 0 && compareArtifactRecords(b, c) <= 0) expect(compareArtifactRecords(a, c)).toBeLessThanOrEqual(0);
        if (compareArtifactRecords(a, b) === 0) expect(a.sha256).toBe(b.sha256);
      }),
      { numRuns: 500 },
    );
  });

  it('is the latest generated_at, then the latest capture, whatever the order records are listed in', async () => {
    await fc.assert(
      fc.asyncProperty(distinctRecords, fc.func(fc.integer()), async (records, shuffleKey) => {
        const latest = (r: ArtifactRecord): [number, number] => [Date.parse(r.generated_at!), Date.parse(r.captured_at)];
        const top = records.map(latest).reduce((m, t) => (t[0] > m[0] || (t[0] === m[0] && t[1] > m[1]) ? t : m));
        const candidates = records.filter((r) => latest(r)[0] === top[0] && latest(r)[1] === top[1]).map((r) => r.sha256);
        const shuffled = [...records].sort((x, y) => shuffleKey(x.sha256) - shuffleKey(y.sha256));
        const chosen = newestPerArtifact(shuffled)[0]!.sha256;
        expect(candidates).toContain(chosen);
        expect(newestPerArtifact([...records].reverse())[0]!.sha256).toBe(chosen);
        // state reads the archive's listing, in whatever order the backend lists keys.
        const backend = new MemBackend();
        for (const record of shuffled) await putArtifactRecord(backend, record);
        const [invocation] = await listArchivedInvocations(backend);
        expect(invocation!.artifacts.manifest!.sha256).toBe(chosen);
      }),
      { numRuns: 200 },
    );
  });
});
