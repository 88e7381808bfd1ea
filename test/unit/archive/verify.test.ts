import { promisify } from 'node:util';
import { gunzipSync, gzip as gzipCb } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { ARCHIVE_FORMAT, putArtifactRecord, summarizeArchive, verifyArchive, type ArtifactRecord } from '../../../src/archive/index.js';
import { file } from '../../helpers/archive-builder.js';

const gzip = promisify(gzipCb);

/**
 * verify against archives damaged on purpose, one promise of the format at a time: each damage
 * is reported with its kind, the key it concerns and why, and nothing else is.
 */
async function healthy(): Promise<{ backend: MemBackend; records: Record<string, ArtifactRecord> }> {
  const backend = new MemBackend();
  await backend.putIfAbsent('FORMAT', Buffer.from(`${ARCHIVE_FORMAT}\n`));
  const records = await file(backend, { invocationId: 'inv-1', statuses: ['success'] });
  return { backend, records };
}

const objectKey = (prefix: string, id: string): string => `${prefix}${id.slice(0, 2)}/${id.slice(2)}`;

async function chunkKeys(backend: MemBackend): Promise<string[]> {
  return (await backend.list('chunks/')).map((k) => k.key).sort();
}

async function replace(backend: MemBackend, key: string, bytes: Uint8Array): Promise<void> {
  await backend.delete(key);
  await backend.putIfAbsent(key, bytes);
}

describe('verifyArchive', () => {
  it('passes a sound archive and counts what it checked, reporting progress to the end', async () => {
    const { backend } = await healthy();
    const ticks: [number, number][] = [];
    const report = await verifyArchive(backend, (done, total) => ticks.push([done, total]));
    expect(report).toEqual({
      ok: true,
      checked: { chunks: 2, files: 2, artifactRecords: 2, captureRecords: 1 },
      problems: [],
      damaged: { chunks: [], files: [] },
    });
    expect(ticks.at(-1)).toEqual([4, 4]);
    expect(ticks).toHaveLength(4);
  });

  it.each([
    [undefined, "expected 'dbtattic-archive 2' or an earlier format this dbtattic reads, found nothing"],
    ['dbtattic-archive 3\n', "expected 'dbtattic-archive 2' or an earlier format this dbtattic reads, found 'dbtattic-archive 3'"],
  ])('reports a FORMAT that is %j', async (format, message) => {
    const { backend } = await healthy();
    await backend.delete('FORMAT');
    if (format) await backend.putIfAbsent('FORMAT', Buffer.from(format));
    expect((await verifyArchive(backend)).problems).toEqual([{ kind: 'format', key: 'FORMAT', message }]);
  });

  it('accepts an archive of format 1, which it still reads', async () => {
    const { backend } = await healthy();
    await backend.delete('FORMAT');
    await backend.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 1\n'));
    expect((await verifyArchive(backend)).problems).toEqual([]);
  });

  it('follows a damaged chunk to the file that needs it and the record that names that file', async () => {
    const { backend, records } = await healthy();
    const manifest = records.manifest!;
    // A synthetic manifest is smaller than the minimum chunk: its one chunk has its id.
    const chunkId = manifest.sha256;
    const chunk = objectKey('chunks/', chunkId);
    await replace(backend, chunk, await gzip(Buffer.from('other bytes')));
    const report = await verifyArchive(backend);
    expect(report.ok).toBe(false);
    expect(report.problems.sort((a, b) => a.key.localeCompare(b.key))).toEqual(
      [
        { kind: 'corrupt-object', key: chunk, message: `chunk ${chunkId} does not match its hash.` },
        { kind: 'corrupt-object', key: objectKey('files/', manifest.sha256), message: `names chunk ${chunkId}, which is missing or damaged` },
        {
          kind: 'dangling-record',
          key: `records/invocations/inv-1/manifest-${manifest.sha256}.json`,
          message: `points at artifact ${manifest.sha256}, which is missing or damaged`,
        },
      ].sort((a, b) => a.key.localeCompare(b.key)),
    );
  });

  it('reports a chunk that does not decompress, and files in chunks/ or files/ not named by a hash', async () => {
    const { backend } = await healthy();
    const [first] = await chunkKeys(backend);
    await replace(backend, first!, Buffer.from('not gzip'));
    await backend.putIfAbsent('chunks/zz/stray', Buffer.from('x'));
    await backend.putIfAbsent('files/ab/short', Buffer.from('x'));
    const problems = (await verifyArchive(backend)).problems.filter(
      (p) => (p.kind === 'corrupt-object' && !p.key.startsWith('files/')) || p.key === 'files/ab/short',
    );
    expect(problems.sort((a, b) => a.key.localeCompare(b.key))).toEqual([
      { kind: 'corrupt-object', key: first, message: `chunk ${first!.replace('chunks/', '').replace('/', '')} cannot be decompressed.` },
      { kind: 'corrupt-object', key: 'chunks/zz/stray', message: 'a file in chunks/ that is not named by a hash' },
      { kind: 'corrupt-object', key: 'files/ab/short', message: 'a file in files/ that is not named by a hash' },
    ]);
  });

  it('reports a file index whose sizes or chunks do not add up to its hash', async () => {
    const { backend, records } = await healthy();
    const key = objectKey('files/', records.manifest!.sha256);
    const index = JSON.parse(gunzipSync((await backend.get(key))!).toString('utf8')) as { size: number; chunks: [string, number][] };
    const [chunkId, length] = index.chunks[0]!;
    const cases: [object, string][] = [
      [{ ...index, size: index.size + 1 }, `reassembles to ${index.size} bytes, the index says ${index.size + 1}`],
      [{ ...index, chunks: [[chunkId, length + 1]] }, `chunk ${chunkId} has ${length} bytes, the index says ${length + 1}`],
      [{ ...index, chunks: [['0'.repeat(64), length]] }, `names chunk ${'0'.repeat(64)}, which is missing or damaged`],
    ];
    for (const [changed, message] of cases) {
      await replace(backend, key, await gzip(JSON.stringify(changed)));
      const problems = (await verifyArchive(backend)).problems.filter((p) => p.key === key);
      expect(problems).toEqual([{ kind: 'corrupt-object', key, message }]);
    }
    await replace(backend, key, await gzip(JSON.stringify({ ...index, chunks: [], size: 0 })));
    expect((await verifyArchive(backend)).problems.filter((p) => p.key === key)).toEqual([
      { kind: 'corrupt-object', key, message: 'reassembles to bytes with a different hash' },
    ]);
  });

  it('lists every damaged or missing object by id, in order, named or not', async () => {
    const { backend, records } = await healthy();
    const [strayChunk, missingChunk, strayFile, missingFile] = ['0', 'e', '1', 'd'].map((c) => c.repeat(64));
    // A chunk no file names, whose bytes are not its hash.
    await backend.putIfAbsent(objectKey('chunks/', strayChunk!), await gzip(Buffer.from('other bytes')));
    // A file index no record names, naming a chunk that is not there.
    const index = JSON.parse(gunzipSync((await backend.get(objectKey('files/', records.manifest!.sha256)))!).toString('utf8')) as {
      chunks: [string, number][];
    };
    await backend.putIfAbsent(objectKey('files/', strayFile!), await gzip(JSON.stringify({ ...index, chunks: [[missingChunk, 5]] })));
    // A record naming a file that is not there.
    await putArtifactRecord(backend, { ...records.manifest!, invocation_id: 'inv-2', sha256: missingFile! });
    const report = await verifyArchive(backend);
    expect(report.damaged).toEqual({ chunks: [strayChunk, missingChunk], files: [strayFile, missingFile] });
    expect(report.checked).toMatchObject({ chunks: 3, files: 3 });
  });

  it('reports records that do not parse, sit under another key, or name what is not there', async () => {
    const { backend, records } = await healthy();
    const manifest = records.manifest!;
    const moved = `records/invocations/inv-2/manifest-${manifest.sha256}.json`;
    await backend.putIfAbsent(moved, (await backend.get(`records/invocations/inv-1/manifest-${manifest.sha256}.json`))!);
    await backend.putIfAbsent('records/invocations/inv-3/run_results-0.json', Buffer.from('{ not json'));
    const capture = (await backend.list('records/captures/'))[0]!.key;
    const captured = JSON.parse((await backend.get(capture))!.toString('utf8'));
    captured.artifacts.push({ ...captured.artifacts[0], invocation_id: 'inv-9' });
    captured.artifacts.push({ ...captured.artifacts[0], status: 'absent', sha256: null });
    await replace(backend, capture, Buffer.from(JSON.stringify(captured)));
    await backend.putIfAbsent(
      'records/captures/broken.json',
      Buffer.from(JSON.stringify({ ...captured, artifacts: [{ ...captured.artifacts[0], sha256: null }] })),
    );
    const report = await verifyArchive(backend);
    expect(report.problems.sort((a, b) => a.key.localeCompare(b.key) || a.message.localeCompare(b.message))).toEqual([
      { kind: 'dangling-record', key: capture, message: `names records/invocations/inv-9/manifest-${manifest.sha256}.json, which is missing or damaged` },
      { kind: 'bad-record', key: 'records/captures/broken.json', message: 'its manifest entry lacks an invocation or hash' },
      { kind: 'bad-record', key: moved, message: 'its content does not match its key' },
      {
        kind: 'bad-record',
        key: 'records/invocations/inv-3/run_results-0.json',
        message: 'Record records/invocations/inv-3/run_results-0.json is unreadable: it is not valid JSON.',
      },
    ]);
    expect(report.checked).toEqual({ chunks: 2, files: 2, artifactRecords: 2, captureRecords: 2 });
  });
});

describe('summarizeArchive', () => {
  it('counts invocations, records and objects, and sums logical and stored bytes', async () => {
    const { backend, records } = await healthy();
    const second = await file(backend, {
      invocationId: 'inv-2',
      statuses: ['success', 'success'],
      artifacts: ['manifest'],
      capturedAt: '2026-01-02T05:00:00.000Z',
    });
    // Filed again by a later capture: one more capture record, the same artifact record, no more bytes.
    await file(backend, { invocationId: 'inv-2', statuses: ['success', 'success'], artifacts: ['manifest'], capturedAt: '2026-01-02T06:00:00.000Z' });
    const listed = async (prefix: string): Promise<number> => (await backend.list(prefix)).reduce((sum, k) => sum + k.size, 0);
    const stored = (await listed('chunks/')) + (await listed('files/')) + (await listed('records/'));
    expect(await summarizeArchive(backend)).toEqual({
      location: 'mem:',
      invocations: 2,
      artifactRecords: 3,
      captureRecords: 3,
      files: 3,
      chunks: 3,
      logicalBytes: records.manifest!.size + records.run_results!.size + second.manifest!.size,
      storedBytes: stored,
    });
  });
});
