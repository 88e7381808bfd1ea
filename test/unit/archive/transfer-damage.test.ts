import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { readFileIndex, transferArchive, verifyArchive, type ArtifactRecord, type Backend } from '../../../src/archive/index.js';
import { chunkKey, fileKey } from '../../../src/archive/layout.js';
import { openArchiveOn } from '../../../src/archive/open.js';
import { file } from '../../helpers/archive-builder.js';

/**
 * push/pull past damage in the source (issue 42, item 7): a pull used to stop at the first
 * damaged object with nothing copied. Every intact invocation is copied, the damaged ones are
 * reported and left out with the capture records naming them (which would dangle there), no
 * damaged byte reaches the target, and the target verifies.
 */
const now = new Date('2026-03-01T00:00:00Z');
const ids = [1, 2, 3, 4].map((n) => `da3a0000-0000-4000-8000-00000000000${n}`);

async function overwrite(backend: Backend, key: string, bytes: Buffer): Promise<void> {
  await backend.delete(key);
  await backend.putIfAbsent(key, bytes);
}

async function sourceOfFour(): Promise<{ source: Backend; records: Record<string, ArtifactRecord>[] }> {
  const source = await openArchiveOn(new MemBackend(), true);
  const records: Record<string, ArtifactRecord>[] = [];
  for (const [i, invocationId] of ids.entries()) {
    records.push(
      await file(source, { invocationId, branch: 'main', capturedAt: `2026-01-0${i + 1}T00:00:00.000Z`, generatedAt: `2026-01-0${i + 1}T00:00:00.000000Z` }),
    );
  }
  return { source, records };
}

const invocationsIn = async (backend: Backend): Promise<string[]> =>
  [...new Set((await backend.list('records/invocations/')).map((k) => decodeURIComponent(k.key.split('/')[2]!)))].sort();

describe('a transfer from a damaged source', () => {
  // One kind of damage per invocation: its run_results record, its manifest's file index, a
  // chunk of its run_results (the fourth stays intact).
  const DAMAGE: [string, (source: Backend, records: Record<string, ArtifactRecord>[]) => Promise<string>][] = [
    [
      'an artifact record that does not parse',
      async (source, records) => {
        const key = `records/invocations/${ids[0]}/run_results-${records[0]!.run_results!.sha256}.json`;
        await overwrite(source, key, Buffer.from('{"kind": "artif'));
        return key;
      },
    ],
    [
      'a file index that does not decompress',
      async (source, records) => {
        const key = fileKey(records[1]!.manifest!.sha256);
        await overwrite(source, key, Buffer.from('not gzip'));
        return key;
      },
    ],
    [
      'a chunk whose bytes no longer match its hash',
      async (source, records) => {
        const [chunk] = (await readFileIndex(source, records[2]!.run_results!.sha256)).chunks[0]!;
        const stored = (await source.get(chunkKey(chunk)))!;
        stored[stored.length - 1] = stored[stored.length - 1]! ^ 0xff;
        await overwrite(source, chunkKey(chunk), stored);
        return fileKey(records[2]!.run_results!.sha256);
      },
    ],
    [
      'a missing chunk',
      async (source, records) => {
        const [chunk] = (await readFileIndex(source, records[2]!.manifest!.sha256)).chunks[0]!;
        await source.delete(chunkKey(chunk));
        return fileKey(records[2]!.manifest!.sha256);
      },
    ],
  ];

  it.each(DAMAGE)('%s: every other invocation is copied, the damaged one is reported and left out, the target verifies', async (_, damage) => {
    const { source, records } = await sourceOfFour();
    const key = await damage(source, records);
    const damagedIndex = DAMAGE.findIndex(([, d]) => d === damage);
    const lost = ids[Math.min(damagedIndex, 2)]!;
    const target = await openArchiveOn(new MemBackend(), true);

    const report = await transferArchive(source, target, undefined, now);

    expect(report.damaged).toEqual([{ invocation_id: lost, key, problem: expect.any(String) }]);
    expect(await invocationsIn(target)).toEqual(ids.filter((id) => id !== lost));
    expect(report.artifactRecords).toBe(6);
    // The capture record that filed the damaged invocation is not copied: it would dangle there.
    const captures = await Promise.all((await target.list('records/captures/')).map(async (k) => (await target.get(k.key))!.toString('utf8')));
    expect(captures).toHaveLength(3);
    expect(captures.some((text) => text.includes(lost))).toBe(false);
    const verified = await verifyArchive(target);
    expect(verified.problems).toEqual([]);

    // Once the source is mended (here: the damaged invocation filed again whole), the next copy brings it.
    const mended = await sourceOfFour();
    const again = await transferArchive(mended.source, target, undefined, now);
    expect(again.damaged).toEqual([]);
    expect(await invocationsIn(target)).toEqual(ids);
    expect((await verifyArchive(target)).problems).toEqual([]);
  });

  it('an unreadable capture record is reported and not copied; the invocations it named still are', async () => {
    const { source } = await sourceOfFour();
    const [captureKey] = (await source.list('records/captures/')).map((k) => k.key);
    await overwrite(source, captureKey!, Buffer.from('garbage'));
    const target = await openArchiveOn(new MemBackend(), true);
    const report = await transferArchive(source, target, undefined, now);
    expect(report.damaged).toEqual([{ invocation_id: null, key: captureKey, problem: expect.stringContaining('unreadable') }]);
    expect(await invocationsIn(target)).toEqual(ids);
    expect(await target.has(captureKey!)).toBe(false);
    expect((await verifyArchive(target)).problems).toEqual([]);
  });
});
