import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import {
  ARCHIVE_FORMAT,
  advanceBranch,
  deleteBranch,
  listBranches,
  openArchiveForCheck,
  readBlob,
  readBranch,
  repairArchive,
  verifyArchive,
} from '../../../src/archive/index.js';
import { EMPTY_POLICY, evaluatePolicy } from '../../../src/retention/index.js';
import { openArchiveOn } from '../../../src/archive/open.js';
import { file } from '../../helpers/archive-builder.js';

/**
 * `verify --repair` (README, "verify"): an intact copy of an artifact restores its file index and
 * its chunks; a missing FORMAT is written again; what has no copy stays lost and is named.
 */
async function archived(): Promise<{ backend: MemBackend; manifest: Buffer; runResults: Buffer }> {
  const backend = new MemBackend();
  await backend.putIfAbsent('FORMAT', Buffer.from(`${ARCHIVE_FORMAT}\n`));
  const records = await file(backend, { invocationId: 'inv-1' });
  return { backend, manifest: await readBlob(backend, records.manifest!.sha256), runResults: await readBlob(backend, records.run_results!.sha256) };
}

const copiesOf = (...blobs: Buffer[]) =>
  async function* (): AsyncIterable<Buffer> {
    yield* blobs;
  };
const keysUnder = async (backend: MemBackend, prefix: string): Promise<string[]> => (await backend.list(prefix)).map((k) => k.key).sort();

describe('repairArchive', () => {
  it('restores deleted chunks, then deleted file indexes with their chunks, from intact copies, counting each', async () => {
    const { backend, manifest, runResults } = await archived();
    const [chunks, files] = [await keysUnder(backend, 'chunks/'), await keysUnder(backend, 'files/')];
    const kept = new Map(await Promise.all([...chunks, ...files].map(async (key) => [key, await backend.get(key)] as const)));
    const copies = copiesOf(Buffer.from('not an artifact'), manifest, runResults);
    for (const key of chunks) await backend.delete(key);
    const report = await repairArchive(backend, copies);
    // A file index whose chunk is gone is damaged too: rewritten from its copy.
    expect(report.restored).toEqual({ format: false, chunks: chunks.length, files: files.length, refs: 0 });
    expect(report.after.ok).toBe(true);
    for (const key of [...chunks, ...files]) await backend.delete(key);
    // Without its index, a chunk is not known to be missing: restoring the index writes it.
    expect((await repairArchive(backend, copies)).restored).toEqual({ format: false, chunks: 0, files: files.length, refs: 0 });
    for (const [key, bytes] of kept) expect((await backend.get(key))?.equals(bytes!)).toBe(true);
  });

  it('names what no copy restores, and leaves an intact archive as it was', async () => {
    const { backend, manifest } = await archived();
    const intact = await repairArchive(backend, copiesOf(manifest));
    expect(intact.restored).toEqual({ format: false, chunks: 0, files: 0, refs: 0 });
    expect(intact.after.ok).toBe(true);
    const files = await keysUnder(backend, 'files/');
    for (const key of files) await backend.delete(key);
    const report = await repairArchive(backend, copiesOf(manifest));
    expect(report.restored).toEqual({ format: false, chunks: 0, files: 1, refs: 0 });
    expect(report.after.ok).toBe(false);
    expect(report.after.damaged.files).toHaveLength(1);
  });

  it('writes a missing FORMAT again, after which the archive opens', async () => {
    const { backend } = await archived();
    await backend.delete('FORMAT');
    await expect(openArchiveOn(backend, true)).rejects.toMatchObject({ code: 'archive-damaged' });
    const report = await repairArchive(backend, copiesOf());
    expect(report.restored).toEqual({ format: true, chunks: 0, files: 0, refs: 0 });
    expect((await backend.get('FORMAT'))?.toString('utf8')).toBe('dbtattic-archive 2\n');
    expect(report.after.ok).toBe(true);
    await expect(openArchiveOn(backend, false)).resolves.toBe(backend);
  });
});

describe('an unreadable branch ref', () => {
  it('is named by verify, written again by repair from the newest capture on the branch, and can be deleted', async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('FORMAT', Buffer.from(`${ARCHIVE_FORMAT}\n`));
    await file(backend, { invocationId: 'inv-1', branch: 'main', capturedAt: '2026-01-02T04:00:00.000Z' });
    await file(backend, { invocationId: 'inv-2', branch: 'main', capturedAt: '2026-01-02T05:00:00.000Z' });
    await file(backend, { invocationId: 'inv-3', branch: 'dev', capturedAt: '2026-01-02T06:00:00.000Z' });
    await backend.putIfAbsent('refs/branches/main', Buffer.from('{"name": "main", "head_capture'));
    await expect(advanceBranch(backend, 'main', 'ffff', 'inv-4', new Date())).rejects.toMatchObject({
      code: 'archive-damaged',
      message: expect.stringContaining('verify --repair'),
    });

    const verified = await verifyArchive(backend);
    expect(verified.problems).toEqual([{ kind: 'bad-ref', key: 'refs/branches/main', message: expect.stringContaining("branch 'main' is unreadable") }]);
    const report = await repairArchive(backend, copiesOf());
    expect(report.restored).toEqual({ format: false, chunks: 0, files: 0, refs: 1 });
    expect(report.after.ok).toBe(true);
    expect(await readBranch(backend, 'main')).toMatchObject({ head_invocation_id: 'inv-2', base: null });

    await backend.delete('refs/branches/main');
    await backend.putIfAbsent('refs/branches/main', Buffer.from('not json'));
    expect(await deleteBranch(backend, 'main')).toMatchObject({ name: 'main' });
    expect(await backend.get('refs/branches/main')).toBeUndefined();
  });
});

describe('a key under the branch refs that names no branch', () => {
  it('is skipped by branch list and forget, named by verify and removed by repair', async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('FORMAT', Buffer.from(`${ARCHIVE_FORMAT}\n`));
    await file(backend, { invocationId: 'inv-1', branch: 'main', capturedAt: '2026-01-02T04:00:00.000Z' });
    await advanceBranch(backend, 'main', '0000000000001-aaaaaaaaaaaa', 'inv-1', new Date());
    const main = (await backend.get('refs/branches/main'))!;
    const stray = ['refs/branches/evil%2F..%2F..', 'refs/branches/a%2e', 'refs/branches/%E0%A4%A', 'refs/branch-heads/..%2Fx/0000000000001-aaaaaaaaaaaa'];
    for (const key of stray) await backend.putIfAbsent(key, main);

    expect((await listBranches(backend)).map((b) => b.name)).toEqual(['main']);
    expect(await evaluatePolicy(backend, { ...EMPTY_POLICY, last: 1 }, { now: new Date() })).toMatchObject({ keep: ['inv-1'] });
    const verified = await verifyArchive(backend);
    expect(verified.problems.map((p) => [p.kind, p.key]).sort()).toEqual(stray.map((key) => ['bad-ref', key]).sort());
    const report = await repairArchive(backend, copiesOf());
    expect(report.restored.refs).toBe(stray.length);
    expect(report.after.ok).toBe(true);
    for (const key of stray) expect(await backend.get(key)).toBeUndefined();
    expect(await readBranch(backend, 'main')).toMatchObject({ head_invocation_id: 'inv-1' });
  });
});

describe('opening an archive', () => {
  it('calls objects of any kind without FORMAT damage, and an empty location no archive', async () => {
    for (const key of ['refs/branches/main', 'records/captures/c.json', 'files/ab/cd', 'records/invocations/i/manifest-x.json', 'chunks/ab/cd']) {
      const backend = new MemBackend();
      await backend.putIfAbsent(key, Buffer.from('x'));
      await expect(openArchiveOn(backend, true)).rejects.toMatchObject({
        code: 'archive-damaged',
        message:
          "The archive at mem: holds objects but its FORMAT file is missing. Nothing was written. Run 'dbtattic verify --repair' to check the archive and restore FORMAT.",
      });
      expect(await backend.get('FORMAT')).toBeUndefined();
    }
    const other = new MemBackend();
    await other.putIfAbsent('notes/readme', Buffer.from('x'));
    await expect(openArchiveOn(other, false)).rejects.toMatchObject({
      code: 'not-found',
      message: "No archive at mem:. Run 'dbtattic capture' in a dbt project first.",
    });
    await expect(openArchiveOn(other, true)).resolves.toBe(other);
  });

  it('for verify: opens an archive whose FORMAT is missing, but not a location with no archive', async () => {
    await expect(openArchiveForCheck('mem:')).rejects.toMatchObject({ code: 'not-found' });
    const { backend } = await archived();
    expect(backend).toBeDefined();
    await expect(openArchiveForCheck('s3://bucket/prefix')).rejects.toMatchObject({
      code: 'config',
      message: "Archive location 's3://bucket/prefix' needs S3 settings. This is a bug in the caller.",
    });
  });

  it('takes a FORMAT with surrounding whitespace as the format it names', async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('FORMAT', Buffer.from('  dbtattic-archive 1 \r\n'));
    await expect(openArchiveOn(backend, false)).resolves.toBe(backend);
  });
});
