import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { gzipSync } from 'node:zlib';
import { chunkKey, fileKey } from '../../../src/archive/layout.js';
import { hasBlob, putBlob, readBlob, recallBlob } from '../../../src/archive/objects.js';
import { sha256 } from '../../../src/vocab/index.js';
import { seededBytes } from '../../helpers/seeded-bytes.js';

describe('blobs', () => {
  it('round-trip byte-identically, addressed by the hash of the whole', async () => {
    const backend = new MemBackend();
    const bytes = Buffer.from(JSON.stringify({ nodes: Array.from({ length: 3000 }, (_, i) => ({ id: i, sql: `select ${i}` })) }));
    const put = await putBlob(backend, bytes);
    expect(put.id).toBe(sha256(bytes));
    expect(await hasBlob(backend, put.id)).toBe(true);
    expect((await readBlob(backend, put.id)).equals(bytes)).toBe(true);
  });

  it('store nothing the second time', async () => {
    const backend = new MemBackend();
    const bytes = randomBytes(500_000);
    expect((await putBlob(backend, bytes)).storedBytes).toBeGreaterThan(0);
    const again = await putBlob(backend, bytes);
    expect(again.storedBytes).toBe(0);
    expect(again.newChunks).toBe(0);
  });

  it('share chunks with a near-identical blob', async () => {
    const backend = new MemBackend();
    const base = seededBytes(2_000_000, 'near-identical');
    const first = await putBlob(backend, base);
    const edited = Buffer.from(base);
    edited.write('changed', 1_500_000);
    const second = await putBlob(backend, edited);
    expect(second.storedBytes).toBeLessThan(first.storedBytes * 0.2);
    expect((await readBlob(backend, second.id)).equals(edited)).toBe(true);
  });

  it('handle the empty artifact', async () => {
    const backend = new MemBackend();
    const put = await putBlob(backend, Buffer.alloc(0));
    expect((await readBlob(backend, put.id)).length).toBe(0);
  });

  it('refuse to return bytes that do not match their hash', async () => {
    const backend = new MemBackend();
    const bytes = randomBytes(100_000);
    const put = await putBlob(backend, bytes);
    const [chunkKey] = (await backend.list('chunks/')).map((k) => k.key);
    await backend.delete(chunkKey!);
    await expect(readBlob(backend, put.id)).rejects.toThrow(/missing/);
  });

  it('are handed over, not read back, to whoever recalls one this process wrote', async () => {
    const backend = new MemBackend();
    const bytes = randomBytes(300_000);
    const put = await putBlob(backend, bytes);
    for (const { key } of await backend.list('chunks/')) await backend.delete(key);
    expect((await recallBlob(backend, put.id)).equals(bytes)).toBe(true);
    // What the archive holds is still what readBlob (and verify) see.
    await expect(readBlob(backend, put.id)).rejects.toThrow(/missing/);
  });

  it('are read from the archive when recalled by a process that did not write them', async () => {
    const backend = new MemBackend();
    const bytes = randomBytes(1000);
    const id = sha256(bytes);
    // As another process wrote it: the objects, with no putBlob here.
    await backend.putIfAbsent(chunkKey(id), gzipSync(bytes));
    await backend.putIfAbsent(fileKey(id), gzipSync(JSON.stringify({ format: 1, size: bytes.length, chunks: [[id, bytes.length]] })));
    expect((await recallBlob(backend, id)).equals(bytes)).toBe(true);
    await backend.delete(chunkKey(id));
    await expect(recallBlob(backend, id)).rejects.toThrow(/missing/);
  });
});
