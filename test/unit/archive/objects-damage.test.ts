import { promisify } from 'node:util';
import { gunzipSync, gzip as gzipCb } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { hasBlob, putBlob, readBlob } from '../../../src/archive/objects.js';
import { sha256 } from '../../../src/vocab/index.js';

const gzip = promisify(gzipCb);

/** readBlob never returns bytes the archive cannot vouch for: each damage has its own message. */
const AFTER = ". Run 'dbtattic verify' to see the extent of the damage.";

async function stored(): Promise<{ backend: MemBackend; id: string; fileKey: string; index: { format: number; size: number; chunks: [string, number][] } }> {
  const backend = new MemBackend();
  const bytes = Buffer.from('x'.repeat(1000));
  const put = await putBlob(backend, bytes);
  expect(put).toEqual({ id: sha256(bytes), size: 1000, storedBytes: expect.any(Number), newChunks: 1 });
  const fileKey = `files/${put.id.slice(0, 2)}/${put.id.slice(2)}`;
  return { backend, id: put.id, fileKey, index: JSON.parse(gunzipSync((await backend.get(fileKey))!).toString('utf8')) };
}

async function rewrite(backend: MemBackend, key: string, value: unknown): Promise<void> {
  await backend.delete(key);
  await backend.putIfAbsent(key, await gzip(typeof value === 'string' ? value : JSON.stringify(value)));
}

describe('readBlob on a damaged archive', () => {
  it('says an artifact is not there', async () => {
    const backend = new MemBackend();
    expect(await hasBlob(backend, 'f'.repeat(64))).toBe(false);
    await expect(readBlob(backend, 'f'.repeat(64))).rejects.toMatchObject({
      code: 'archive-damaged',
      message: `artifact ${'f'.repeat(64)} is not in the archive${AFTER}`,
    });
  });

  it.each([
    ['not JSON', 'not json'],
    ['another format', { format: 2, size: 1000, chunks: [] }],
    ['no chunk list', { format: 1, size: 1000, chunks: {} }],
  ])('says a file index is unreadable: %s', async (_what, value) => {
    const { backend, id, fileKey } = await stored();
    await rewrite(backend, fileKey, value);
    await expect(readBlob(backend, id)).rejects.toMatchObject({ message: `the file index of artifact ${id} is unreadable${AFTER}` });
    await expect(putBlob(backend, Buffer.from('x'.repeat(1000)))).rejects.toMatchObject({ code: 'archive-damaged' });
  });

  it('says when the chunk lengths do not add up to the size', async () => {
    const { backend, id, fileKey, index } = await stored();
    await rewrite(backend, fileKey, { ...index, size: 999 });
    await expect(readBlob(backend, id)).rejects.toMatchObject({ message: `the file index of an artifact adds up to 1000 bytes, not 999${AFTER}` });
  });

  it('says when a chunk has another length than the index', async () => {
    const { backend, id, fileKey, index } = await stored();
    const other = Buffer.from('y'.repeat(10));
    await backend.putIfAbsent(`chunks/${sha256(other).slice(0, 2)}/${sha256(other).slice(2)}`, await gzip(other));
    await rewrite(backend, fileKey, { ...index, chunks: [[sha256(other), 1000]] });
    await expect(readBlob(backend, id)).rejects.toMatchObject({ message: `chunk ${sha256(other)} has another length than its file index says${AFTER}` });
  });

  it('says when the chunks reassemble to other bytes', async () => {
    const { backend, id, fileKey } = await stored();
    const other = Buffer.from('y'.repeat(1000));
    await backend.putIfAbsent(`chunks/${sha256(other).slice(0, 2)}/${sha256(other).slice(2)}`, await gzip(other));
    await rewrite(backend, fileKey, { format: 1, size: 1000, chunks: [[sha256(other), 1000]] });
    await expect(readBlob(backend, id)).rejects.toMatchObject({ message: `artifact ${id} reassembles to different bytes than were stored${AFTER}` });
  });

  it('says when a chunk is missing, not gzip, or not what its name says', async () => {
    const { backend, id, index } = await stored();
    const [chunkId] = index.chunks[0]!;
    const key = `chunks/${chunkId.slice(0, 2)}/${chunkId.slice(2)}`;
    await backend.delete(key);
    await backend.putIfAbsent(key, Buffer.from('not gzip'));
    await expect(readBlob(backend, id)).rejects.toMatchObject({ message: `chunk ${chunkId} cannot be decompressed${AFTER}` });
    await rewrite(backend, key, 'other');
    await expect(readBlob(backend, id)).rejects.toMatchObject({ message: `chunk ${chunkId} does not match its hash${AFTER}` });
    await backend.delete(key);
    await expect(readBlob(backend, id)).rejects.toMatchObject({ message: `chunk ${chunkId} is missing${AFTER}` });
  });

  it('stores a chunk once across blobs and counts what each put added', async () => {
    const backend = new MemBackend();
    const first = await putBlob(backend, Buffer.from('a'.repeat(500)));
    const indexBytes = (await backend.list('files/'))[0]!.size;
    const chunkBytes = (await backend.list('chunks/'))[0]!.size;
    expect(first.storedBytes).toBe(indexBytes + chunkBytes);
    // The same bytes under another id: the chunk is there already, only the index is new.
    const again = await putBlob(backend, Buffer.from('a'.repeat(500)), 'e'.repeat(64));
    expect(again.newChunks).toBe(0);
    expect(again.storedBytes).toBe((await backend.list('files/')).find((k) => k.key.startsWith('files/ee/'))!.size);
  });
});
