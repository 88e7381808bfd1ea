import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import {
  MAX_TREE_DEPTH,
  planSqlTree,
  putBlob,
  putOutputRecord,
  putSqlTree,
  readSqlTree,
  verifyArchive,
  type OutputRecord,
  type SqlFiles,
} from '../../../src/archive/index.js';

const files = (n: number, changed = new Set<number>()): SqlFiles =>
  new Map(
    Array.from({ length: n }, (_, i) => [`compiled/p/models/m${i}.sql`, { id: `${changed.has(i) ? 'b' : 'a'}${String(i).padStart(63, '0')}`, size: 100 + i }]),
  );

describe('SQL trees', () => {
  it('writes a delta of what changed on a base, and reads back every file', async () => {
    const backend = new MemBackend();
    const first = files(100);
    const whole = planSqlTree(first, null);
    const base = { id: (await putSqlTree(backend, whole)).id, depth: whole.depth, files: first };
    const next = files(99, new Set([3, 50]));
    const delta = planSqlTree(next, base);
    expect(delta.base).toBe(base.id);
    expect(Object.keys(delta.files).sort()).toEqual(['compiled/p/models/m3.sql', 'compiled/p/models/m50.sql']);
    expect(delta.removed).toEqual(['compiled/p/models/m99.sql']);
    const read = await readSqlTree(backend, (await putSqlTree(backend, delta)).id);
    expect(read.files).toEqual(next);
  });

  it('writes a tree whole when over half its files changed, or the chain would grow too long', () => {
    const base = { id: 'f'.repeat(64), depth: 0, files: files(10) };
    expect(planSqlTree(files(10, new Set([0, 1, 2, 3, 4, 5])), base).base).toBeNull();
    expect(planSqlTree(files(10, new Set([0])), { ...base, depth: MAX_TREE_DEPTH - 1 }).base).toBeNull();
    expect(planSqlTree(files(10, new Set([0])), base).base).toBe(base.id);
  });
});

describe('verify and SQL trees', () => {
  it('reports a tree whose file is gone, naming the file', async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 1\n'));
    const sql = Buffer.from('select 1\n');
    const file = await putBlob(backend, sql);
    const doc = planSqlTree(new Map([['compiled/p/models/a.sql', { id: file.id, size: sql.length }]]), null);
    const tree = await putSqlTree(backend, doc);
    const record: OutputRecord = {
      kind: 'output',
      format: 1,
      output: 'sql',
      invocation_id: 'inv-1',
      sha256: tree.id,
      size: 1,
      entries: 1,
      detail: {},
      captured_at: '2026-01-01T00:00:00Z',
      capture_id: 'c',
      phase: 'manual',
    };
    await putOutputRecord(backend, record);
    expect((await verifyArchive(backend)).problems).toEqual([]);
    await backend.delete(`files/${file.id.slice(0, 2)}/${file.id.slice(2)}`);
    const problems = (await verifyArchive(backend)).problems.filter((p) => p.kind === 'dangling-record');
    expect(problems.map((p) => p.message)).toEqual([expect.stringContaining('compiled/p/models/a.sql')]);
  });
});
