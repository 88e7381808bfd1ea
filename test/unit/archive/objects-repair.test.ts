import { promisify } from 'node:util';
import { gzip as gzipCb } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { splitChunks } from '../../../src/archive/chunking.js';
import { putBlob, readBlob, repairBlob, restoreChunks } from '../../../src/archive/index.js';
import { sha256 } from '../../../src/vocab/index.js';
import { seededBytes } from '../../helpers/seeded-bytes.js';

const gzip = promisify(gzipCb);

/**
 * Repair from an intact copy (README, "verify --repair", and capture of an artifact the archive
 * already records): what is missing or does not read back is written again, what is whole is
 * left alone, and the count says how many objects were written.
 */
const objectKey = (prefix: string, id: string): string => `${prefix}${id.slice(0, 2)}/${id.slice(2)}`;

async function stored(): Promise<{ backend: MemBackend; bytes: Buffer; id: string; chunkIds: string[] }> {
  const backend = new MemBackend();
  // Three chunks or more: a repair must touch only the damaged ones.
  const bytes = seededBytes(400_000, 'objects-repair');
  const { id } = await putBlob(backend, bytes);
  const chunkIds = splitChunks(bytes).map((c) => sha256(c));
  expect(chunkIds.length).toBeGreaterThanOrEqual(3);
  return { backend, bytes, id, chunkIds };
}

async function snapshot(backend: MemBackend): Promise<Map<string, Buffer | undefined>> {
  const keys = (await backend.list('')).map((k) => k.key);
  return new Map(await Promise.all(keys.map(async (k) => [k, await backend.get(k)] as const)));
}

describe('repairBlob', () => {
  it('writes nothing for a blob that is whole', async () => {
    const { backend, bytes } = await stored();
    const before = await snapshot(backend);
    expect(await repairBlob(backend, bytes)).toBe(0);
    expect(await snapshot(backend)).toEqual(before);
  });

  it('writes again a chunk that is gone, one that does not decompress and one with other bytes, and only those', async () => {
    const { backend, bytes, id, chunkIds } = await stored();
    expect(chunkIds.length).toBeGreaterThanOrEqual(3);
    const before = await snapshot(backend);
    const [gone, garbled, other] = chunkIds.map((c) => objectKey('chunks/', c));
    await backend.delete(gone!);
    await backend.delete(garbled!);
    await backend.putIfAbsent(garbled!, Buffer.from('not gzip'));
    await backend.delete(other!);
    await backend.putIfAbsent(other!, await gzip(Buffer.from('other bytes')));
    expect(await repairBlob(backend, bytes, id)).toBe(3);
    expect(await snapshot(backend)).toEqual(before);
    expect((await readBlob(backend, id)).equals(bytes)).toBe(true);
  });

  it('writes again a file index that is gone or damaged, as it was', async () => {
    const { backend, bytes, id } = await stored();
    const before = await snapshot(backend);
    await backend.delete(objectKey('files/', id));
    expect(await repairBlob(backend, bytes)).toBe(1);
    expect(await snapshot(backend)).toEqual(before);
    await backend.delete(objectKey('files/', id));
    await backend.putIfAbsent(objectKey('files/', id), await gzip('{"format":2}'));
    expect(await repairBlob(backend, bytes)).toBe(1);
    expect(await snapshot(backend)).toEqual(before);
  });

  it('passes on a read that fails for another reason than damage', async () => {
    const { backend, bytes } = await stored();
    const failing = Object.assign(backend, { get: async () => Promise.reject(Object.assign(new Error('i/o'), { code: 'EIO' })) });
    await expect(repairBlob(failing, bytes)).rejects.toMatchObject({ code: 'EIO' });
  });
});

describe('restoreChunks', () => {
  it('writes the wanted chunks the copy holds, and returns their ids', async () => {
    const { backend, bytes, chunkIds } = await stored();
    const before = await snapshot(backend);
    for (const c of chunkIds) await backend.delete(objectKey('chunks/', c));
    const wanted = new Set([chunkIds[0]!, chunkIds[2]!, 'f'.repeat(64)]);
    expect(await restoreChunks(backend, bytes, wanted)).toEqual([chunkIds[0], chunkIds[2]]);
    expect(await backend.get(objectKey('chunks/', chunkIds[0]!))).toEqual(before.get(objectKey('chunks/', chunkIds[0]!)));
    expect(await backend.has(objectKey('chunks/', chunkIds[1]!))).toBe(false);
    expect(await restoreChunks(backend, bytes, new Set())).toEqual([]);
  });
});
