import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../src/archive/backend.js';
import { FsBackend } from '../../src/archive/backends/fs.js';
import { MemBackend } from '../../src/archive/backends/mem.js';
import { announceS3Skip, makeBucket, openTestS3Backend, s3Available } from '../helpers/s3.js';

announceS3Skip('the backend contract suite on s3 (test/contract/backend.test.ts)');
const bucket = s3Available ? await makeBucket() : '';
let prefixes = 0;

/** One suite, run against every backend: they must be interchangeable. */
const backends: [string, () => Backend | Promise<Backend>][] = [
  ['mem', () => new MemBackend()],
  ['fs', () => new FsBackend(mkdtempSync(path.join(os.tmpdir(), 'attic-backend-')))],
  ...(s3Available ? [['s3', () => openTestS3Backend(`s3://${bucket}/contract/${++prefixes}`)] as [string, () => Promise<Backend>]] : []),
];

describe.each(backends)('%s backend', (_name, make) => {
  it('returns undefined for a key never written', async () => {
    const backend = await make();
    expect(await backend.get('a/b')).toBeUndefined();
    expect(await backend.has('a/b')).toBe(false);
  });

  it('writes once and never overwrites', async () => {
    const backend = await make();
    expect(await backend.putIfAbsent('x/y/z', Buffer.from('first'))).toBe(true);
    expect(await backend.putIfAbsent('x/y/z', Buffer.from('second'))).toBe(false);
    expect((await backend.get('x/y/z'))?.toString()).toBe('first');
  });

  it('lets exactly one of many concurrent writers win', async () => {
    const backend = await make();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => backend.putIfAbsent('race', Buffer.from(`w${i}`))));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('promises create-only writes and compare-and-swap', async () => {
    const backend = await make();
    expect(backend.capabilities).toEqual({ ...backend.capabilities, createOnly: true, compareAndSwap: true });
  });

  it('stores a value over the multipart threshold (16 MiB) whole, once', async () => {
    const backend = await make();
    const big = Buffer.alloc(17 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4096) big.writeUInt32LE(i, i);
    expect(await backend.putIfAbsent('files/big', big)).toBe(true);
    expect(await backend.putIfAbsent('files/big', Buffer.from('other'))).toBe(false);
    expect((await backend.get('files/big'))?.equals(big)).toBe(true);
  }, 60_000);

  it('lists only keys after a given key', async () => {
    const backend = await make();
    for (const id of ['0001', '0002', '0003']) await backend.putIfAbsent(`journal/${id}.json`, Buffer.from(id));
    const listed = (await backend.list('journal/', 'journal/0001.json')).map((k) => k.key).sort();
    expect(listed).toEqual(['journal/0002.json', 'journal/0003.json']);
  });

  it('lists keys under a prefix with their sizes', async () => {
    const backend = await make();
    await backend.putIfAbsent('records/a/1.json', Buffer.from('12345'));
    await backend.putIfAbsent('records/b/2.json', Buffer.from('12'));
    await backend.putIfAbsent('chunks/ab/cd', Buffer.from('x'));
    const listed = (await backend.list('records/')).sort((a, b) => a.key.localeCompare(b.key));
    expect(listed.map(({ key, size }) => ({ key, size }))).toEqual([
      { key: 'records/a/1.json', size: 5 },
      { key: 'records/b/2.json', size: 2 },
    ]);
    expect(await backend.list('nothing/')).toEqual([]);
  });

  it("lists each key's write time, which prune's grace period reads", async () => {
    const backend = await make();
    const before = Date.now();
    await backend.putIfAbsent('chunks/ab/cd', Buffer.from('x'));
    const after = Date.now();
    const [listed] = await backend.list('chunks/');
    // S3 gives whole seconds, and the server's clock: a few seconds either way
    expect(listed!.modifiedMs).toBeGreaterThanOrEqual(before - 5000);
    expect(listed!.modifiedMs).toBeLessThanOrEqual(after + 5000);
  });

  it('deletes', async () => {
    const backend = await make();
    await backend.putIfAbsent('k', Buffer.from('v'));
    await backend.delete('k');
    await backend.delete('never-there');
    expect(await backend.has('k')).toBe(false);
  });

  it('swaps only when the expected value is current', async () => {
    const backend = await make();
    expect(await backend.compareAndSwap('refs/main', undefined, Buffer.from('1'))).toBe(true);
    expect(await backend.compareAndSwap('refs/main', undefined, Buffer.from('2'))).toBe(false);
    expect(await backend.compareAndSwap('refs/main', Buffer.from('0'), Buffer.from('2'))).toBe(false);
    expect(await backend.compareAndSwap('refs/main', Buffer.from('1'), Buffer.from('2'))).toBe(true);
    expect((await backend.get('refs/main'))?.toString()).toBe('2');
    expect(await backend.compareAndSwap('refs/main', Buffer.from('2'), undefined)).toBe(true);
    expect(await backend.has('refs/main')).toBe(false);
  });

  it('serialises concurrent compare-and-swap loops without losing an update', async () => {
    const backend = await make();
    const increment = async (): Promise<void> => {
      for (;;) {
        const current = await backend.get('counter');
        const next = Buffer.from(String(Number(current?.toString() ?? '0') + 1));
        if (await backend.compareAndSwap('counter', current, next)) return;
      }
    };
    await Promise.all(Array.from({ length: 25 }, increment));
    expect((await backend.get('counter'))?.toString()).toBe('25');
  });
});
