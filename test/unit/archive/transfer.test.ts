import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import {
  advanceBranch,
  createBranch,
  divergedBranches,
  putCaptureRecord,
  readBlob,
  readBranch,
  transferArchive,
  type Backend,
} from '../../../src/archive/index.js';
import { openArchiveOn } from '../../../src/archive/open.js';
import { file } from '../../helpers/archive-builder.js';

const now = new Date('2026-03-01T00:00:00Z');

async function capture(backend: Backend, id: string): Promise<void> {
  await putCaptureRecord(backend, {
    kind: 'capture',
    format: 1,
    capture_id: id,
    phase: 'manual',
    captured_at: now.toISOString(),
    tool_version: 't',
    branch: 'main',
    context: {},
    run: null,
    artifacts: [],
  });
  await advanceBranch(backend, 'main', id, null, now);
}

describe('transferArchive', () => {
  it('creates and advances branch heads, and reports a diverged one without overwriting it', async () => {
    const [a, b] = [new MemBackend(), new MemBackend()];
    await capture(a, '0000000000001-aaaaaaaaaaaa');
    expect((await transferArchive(a, b)).branches).toEqual([{ name: 'main', outcome: 'created', source: '0000000000001-aaaaaaaaaaaa', target: null }]);

    await capture(a, '0000000000002-aaaaaaaaaaaa');
    expect((await transferArchive(a, b)).branches[0]).toMatchObject({ outcome: 'advanced' });
    expect((await readBranch(b, 'main'))?.head_capture_id).toBe('0000000000002-aaaaaaaaaaaa');

    await capture(a, '0000000000003-aaaaaaaaaaaa');
    await capture(b, '0000000000004-bbbbbbbbbbbb');
    const report = await transferArchive(a, b);
    expect(report.branches[0]).toMatchObject({ outcome: 'diverged' });
    expect(report.captures).toBe(1);
    expect((await readBranch(b, 'main'))?.head_capture_id).toBe('0000000000004-bbbbbbbbbbbb');
    expect(await transferArchive(a, b)).toMatchObject({ captures: 0, artifactRecords: 0, objects: 0 });
  });

  it('copies what the target lacks byte for byte, after a journal entry naming it, and nothing twice', async () => {
    const [a, b] = [new MemBackend(), new MemBackend()];
    const records = await file(a, { invocationId: 'a1b2c3d4-0000-4000-8000-000000000001', branch: 'main' });
    const keysOf = async (backend: Backend): Promise<string[]> => (await backend.list('')).map((k) => k.key).sort();
    const copied = (await keysOf(a)).filter((k) => /^(chunks|files|records\/invocations|records\/captures)\//.test(k));
    const progress: [number, number][] = [];
    const report = await transferArchive(a, b, (done, total) => progress.push([done, total]), now);
    expect(report).toMatchObject({ artifactRecords: 2, captures: 1, objects: copied.filter((k) => /^(chunks|files)\//.test(k)).length });
    expect(progress).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    for (const key of copied) expect((await b.get(key))?.equals((await a.get(key))!)).toBe(true);
    const journal = (await b.list('records/journal/')).map((k) => k.key);
    expect(journal).toHaveLength(1);
    expect(journal[0]!.startsWith(`records/journal/${now.getTime().toString(16).padStart(13, '0')}-`)).toBe(true);
    const entry = JSON.parse((await b.get(journal[0]!))!.toString('utf8')) as { captures: string[]; artifact_records: unknown[] };
    expect(entry.captures).toEqual([records.manifest!.capture_id]);
    expect(entry.artifact_records).toEqual(
      expect.arrayContaining(Object.values(records).map((r) => ({ invocation_id: r.invocation_id, artifact: r.artifact, sha256: r.sha256 }))),
    );
    expect(entry.artifact_records).toHaveLength(2);
    expect(await b.list('locks/')).toEqual([]);
    expect(await transferArchive(a, b, undefined, now)).toMatchObject({ artifactRecords: 0, captures: 0, objects: 0 });
    expect(await b.list('records/journal/')).toHaveLength(1);
  });

  it('copies a created branch with its base, and calls a head the other side is past behind, not diverged', async () => {
    const [a, b] = [new MemBackend(), new MemBackend()];
    const base = { invocation_id: 'inv-base', branch: 'main' };
    await createBranch(a, 'feature', base, now);
    await capture(a, '0000000000001-aaaaaaaaaaaa');
    const created = await transferArchive(a, b);
    expect(created.branches).toEqual([
      { name: 'feature', outcome: 'created', source: null, target: null },
      { name: 'main', outcome: 'created', source: '0000000000001-aaaaaaaaaaaa', target: null },
    ]);
    expect(await readBranch(b, 'feature')).toMatchObject({ base, head_capture_id: null });
    await capture(b, '0000000000002-bbbbbbbbbbbb');
    const behind = await transferArchive(a, b);
    expect(behind.branches).toEqual([
      { name: 'feature', outcome: 'same', source: null, target: null },
      { name: 'main', outcome: 'behind', source: '0000000000001-aaaaaaaaaaaa', target: '0000000000002-bbbbbbbbbbbb' },
    ]);
    expect(divergedBranches(behind)).toEqual([]);
    expect((await readBranch(b, 'main'))?.head_capture_id).toBe('0000000000002-bbbbbbbbbbbb');
    const back = await transferArchive(b, a);
    expect(back.branches.find((x) => x.name === 'main')).toMatchObject({ outcome: 'advanced' });
    expect((await transferArchive(b, a)).branches.find((x) => x.name === 'main')).toMatchObject({ outcome: 'same' });
    await capture(a, '0000000000003-aaaaaaaaaaaa');
    await capture(b, '0000000000004-bbbbbbbbbbbb');
    const diverged = await transferArchive(a, b);
    expect(divergedBranches(diverged)).toEqual([
      { name: 'main', outcome: 'diverged', source: '0000000000003-aaaaaaaaaaaa', target: '0000000000004-bbbbbbbbbbbb' },
    ]);
  });
});

describe('transferArchive into an archive of format 1', () => {
  it('stores the chunks gzipped there, as the dbtattic that made it reads them', async () => {
    const a = new MemBackend();
    const b = new MemBackend();
    await b.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 1\n'));
    const older = await openArchiveOn(b, false);
    await file(a, { invocationId: 'a1b2c3d4-0000-4000-8000-000000000009', branch: 'main' });
    const gzipped = (bytes: Buffer): boolean => bytes[0] === 0x1f && bytes[1] === 0x8b;
    const chunksOf = async (backend: Backend): Promise<Buffer[]> => Promise.all((await backend.list('chunks/')).map(async (k) => (await backend.get(k.key))!));
    expect((await chunksOf(a)).every((c) => !gzipped(c))).toBe(true);
    await transferArchive(a, older, undefined, now);
    const copied = await chunksOf(b);
    expect(copied.length).toBe((await chunksOf(a)).length);
    expect(copied.every((c) => gzipped(c))).toBe(true);
    for (const k of await a.list('files/')) {
      const id = k.key.replace('files/', '').replace('/', '');
      expect((await readBlob(older, id)).equals(await readBlob(a, id))).toBe(true);
    }
  });
});
