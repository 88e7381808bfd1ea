import { describe, expect, it } from 'vitest';
import type { Backend } from '../../../src/archive/backend.js';
import { readBlob, repairArchive } from '../../../src/archive/index.js';
import { file, newArchive } from '../../helpers/archive-builder.js';

/**
 * `verify --repair` writes objects back, and may find a chunk present and reuse it: the one
 * sequence a concurrent prune could break. So it writes under a writer lease, as capture does.
 */
describe('verify --repair beside prune', () => {
  it('restores a deleted chunk under a writer lease, and leaves no lease behind', async () => {
    const backend = newArchive();
    await backend.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 1\n'));
    const records = await file(backend, { invocationId: 'a1b2c3d4-0000-4000-8000-000000000001' });
    const bytes = await readBlob(backend, records.manifest!.sha256);
    const chunks = (await backend.list('chunks/')).map((k) => k.key);
    expect(chunks.length).toBeGreaterThan(0);
    await backend.delete(chunks[0]!);

    const leasesSeen: string[] = [];
    const watched = new Proxy(backend, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (prop === 'putIfAbsent') {
          return async (key: string, body: Buffer) => {
            if (key.startsWith('locks/writers/')) leasesSeen.push(key);
            return target.putIfAbsent(key, body);
          };
        }
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    }) as Backend;
    const copies = async function* (): AsyncIterable<Buffer> {
      yield bytes;
    };
    const report = await repairArchive(watched, copies);

    expect(report.restored.chunks + report.restored.files).toBeGreaterThan(0);
    expect(report.after.ok).toBe(true);
    expect(leasesSeen.length).toBeGreaterThan(0);
    expect(await backend.list('locks/writers/')).toEqual([]);
  });
});
