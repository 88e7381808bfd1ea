import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { BlobsAhead } from '../../../src/archive/blobs-ahead.js';
import { putBlob } from '../../../src/archive/objects.js';

/** A backend that counts what is asked of it. */
class CountingBackend extends MemBackend {
  gets: string[] = [];
  override async get(key: string): Promise<Buffer | undefined> {
    this.gets.push(key);
    return super.get(key);
  }
}

const MISSING = 'e'.repeat(64);

describe('BlobsAhead', () => {
  it('starts reading when told, before the blob is asked for', async () => {
    const backend = new CountingBackend();
    const blobs = new BlobsAhead(backend);
    blobs.start([MISSING]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(backend.gets).toEqual([`files/ee/${'e'.repeat(62)}`]);
    await expect(blobs.recall(MISSING)).rejects.toMatchObject({ code: 'archive-damaged' });
    // Handed over once: asked again, it is read again.
    await expect(blobs.recall(MISSING)).rejects.toMatchObject({ code: 'archive-damaged' });
    expect(backend.gets).toHaveLength(2);
  });

  it('keeps a failed read ahead to itself until the blob is asked for, and drops it when forgotten', async () => {
    const backend = new CountingBackend();
    const blobs = new BlobsAhead(backend);
    blobs.start([MISSING]);
    await new Promise((resolve) => setTimeout(resolve, 20)); // an unhandled rejection would fail the test run here
    blobs.forget();
    await expect(blobs.recall(MISSING)).rejects.toMatchObject({ code: 'archive-damaged' });
    expect(backend.gets).toHaveLength(2);
  });

  it('hands over the bytes this process wrote without reading the archive', async () => {
    const backend = new CountingBackend();
    const bytes = Buffer.from('{"metadata": {}}'.repeat(100));
    const { id } = await putBlob(backend, bytes);
    backend.gets = [];
    const blobs = new BlobsAhead(backend);
    blobs.start([id]);
    expect(Buffer.compare(await blobs.recall(id), bytes)).toBe(0);
    expect(backend.gets).toEqual([]);
  });
});
