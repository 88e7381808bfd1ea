import { describe, expect, it } from 'vitest';
import type { Backend } from '../../../src/archive/backend.js';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { openArchiveOn } from '../../../src/archive/open.js';

/**
 * Four captures start on an empty bucket: one finds no FORMAT, and by the time it lists, another
 * has written FORMAT and its first objects. That is a new archive, not a damaged one (seen on Ceph
 * RGW in test/e2e/prune-concurrency.test.ts).
 */
describe('opening an archive another process is creating', () => {
  it('accepts objects that appeared after FORMAT was found missing, once FORMAT is there', async () => {
    const backend = new MemBackend();
    let firstLook = true;
    const racing = new Proxy(backend, {
      get(target, prop, receiver) {
        if (prop === 'get') {
          return async (key: string) => {
            if (key === 'FORMAT' && firstLook) {
              firstLook = false;
              // The other process creates the archive right after this look.
              await target.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 1\n'));
              await target.putIfAbsent('chunks/ab/abcd', Buffer.from('x'));
              return undefined;
            }
            return target.get(key);
          };
        }
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    }) as Backend;
    await expect(openArchiveOn(racing, true)).resolves.toBe(racing);
  });

  it('still calls objects without FORMAT damage', async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('chunks/ab/abcd', Buffer.from('x'));
    await expect(openArchiveOn(backend, true)).rejects.toThrow(/FORMAT file is missing/);
  });
});
