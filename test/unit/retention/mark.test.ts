import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FsBackend } from '../../../src/archive/backends/fs.js';
import { hasBlob, planSqlTree, putBlob, putOutputRecord, putSqlTree, verifyArchive, type OutputRecord, type SqlFiles } from '../../../src/archive/index.js';
import { applyForget, pruneArchive } from '../../../src/retention/index.js';
import { sha256 } from '../../../src/vocab/index.js';
import { file } from '../../helpers/archive-builder.js';
import { restoreBlob, restoreTree } from '../../helpers/archive-outputs.js';

/**
 * A kept invocation's SQL tree may be a delta on a forgotten one's: prune must keep the base
 * tree and every file it lists, even one the delta replaced (each tree of a chain must be whole:
 * verify reads them all), and deletes only what nothing kept names.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-mark-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function fileSql(backend: FsBackend, invocationId: string, files: Record<string, string>, base: { id: string; depth: number; files: SqlFiles } | null) {
  const listing: SqlFiles = new Map();
  for (const [p, text] of Object.entries(files)) listing.set(p, { id: (await putBlob(backend, Buffer.from(text))).id, size: text.length });
  const doc = planSqlTree(listing, base);
  const put = await putSqlTree(backend, doc);
  const record: OutputRecord = {
    kind: 'output',
    format: 1,
    output: 'sql',
    invocation_id: invocationId,
    sha256: put.id,
    size: put.size,
    entries: listing.size,
    detail: {},
    captured_at: '2026-01-01T00:00:00Z',
    capture_id: '0000000000000-000000000000',
    phase: 'post',
  };
  await putOutputRecord(backend, record);
  return { id: put.id, depth: doc.depth, files: listing };
}

describe('mark', () => {
  it("keeps a forgotten invocation's tree and files that a kept tree's delta stands on", async () => {
    const archive = path.join(dir, 'archive');
    const backend = new FsBackend(archive);
    await backend.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 1\n'));
    await file(backend, { invocationId: 'old-invocation', generatedAt: '2026-01-01T00:00:00Z' });
    await file(backend, { invocationId: 'new-invocation', generatedAt: '2026-01-02T00:00:00Z' });
    const sql = (n: number): string => `select ${n} as id -- model ${n}`;
    const files = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`compiled/m${i}.sql`, sql(i)]));
    const oldTree = await fileSql(backend, 'old-invocation', files, null);
    const newTree = await fileSql(backend, 'new-invocation', { ...files, 'compiled/m0.sql': 'select 100 as id' }, oldTree);
    expect(JSON.parse(restoreBlob(archive, newTree.id).toString('utf8')).base).toBe(oldTree.id);

    await applyForget(backend, ['old-invocation'], 'test', new Date());
    const report = await pruneArchive(backend, { now: new Date(Date.now() + 1000), graceMs: 0, dryRun: false });

    // the old invocation's artifacts went; its tree and all its files stay
    expect(report.files).toBe(2);
    expect(await hasBlob(backend, oldTree.id)).toBe(true);
    expect(await hasBlob(backend, sha256(sql(0)))).toBe(true);
    const restored = restoreTree(archive, newTree.id);
    expect(restored.size).toBe(6);
    for (const [p, blob] of restored) expect(restoreBlob(archive, blob).toString()).toBe(p === 'compiled/m0.sql' ? 'select 100 as id' : files[p]);
    expect((await verifyArchive(backend)).problems).toEqual([]);
  });
});

describe('prune beside damage', () => {
  it('deletes nothing when a record needs a file index it cannot read, and says to repair first', async () => {
    const archive = path.join(dir, 'damaged');
    const backend = new FsBackend(archive);
    await backend.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 1\n'));
    const kept = await file(backend, { invocationId: 'kept-invocation', generatedAt: '2026-01-02T00:00:00Z' });
    await file(backend, { invocationId: 'gone-invocation', generatedAt: '2026-01-01T00:00:00Z' });
    await applyForget(backend, ['gone-invocation'], 'test', new Date());
    const index = path.join(archive, 'files', kept.manifest!.sha256.slice(0, 2), kept.manifest!.sha256.slice(2));
    writeFileSync(index, 'not gzip');
    const before = (await backend.list('chunks/')).length + (await backend.list('files/')).length;
    await expect(pruneArchive(backend, { now: new Date(Date.now() + 1000), graceMs: 0, dryRun: false })).rejects.toThrow(/verify --repair/);
    expect((await backend.list('chunks/')).length + (await backend.list('files/')).length).toBe(before);
  });
});
