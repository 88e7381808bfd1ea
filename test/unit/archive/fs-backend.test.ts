import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os, { hostname } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FsBackend, sortsAfter } from '../../../src/archive/backends/fs.js';

/** What only the filesystem backend has: files beside the keys, and lock files for refs. */
function backendIn(): { backend: FsBackend; root: string } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'attic-fs-backend-'));
  return { backend: new FsBackend(root), root };
}

function place(root: string, relative: string, content: string): void {
  const file = path.join(root, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

/** A pid no process has: above the kernel's pid_max (4,194,304 at most). */
const GONE_PID = 4_194_999;

/** Starts a swap of the main branch head and checks it is still waiting on the lock a moment later. */
async function swapStillWaiting(backend: FsBackend): Promise<{ swap: Promise<boolean> }> {
  let done = false;
  const swap = backend.compareAndSwap('refs/branches/main', undefined, Buffer.from('h1')).then((ok) => {
    done = true;
    return ok;
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(done).toBe(false);
  return { swap };
}

describe('the filesystem backend', () => {
  it('lists keys with their sizes, leaving out temp files, lock files and locks set aside', async () => {
    const { backend, root } = backendIn();
    place(root, 'records/a/one.json', '12345');
    place(root, 'records/b/two.json', '1');
    place(root, 'records/a/.tmp-0123', 'half');
    place(root, 'refs/branches/main.lock', 'x');
    place(root, 'refs/branches/main.lock.abc.stale', 'x');
    place(root, 'refs/branches/main', 'head');
    // Each key with its size and write time, as the file system says (prune's grace period reads it).
    const stated = (key: string) => {
      const stat = statSync(path.join(root, key));
      return { key, size: stat.size, modifiedMs: stat.mtimeMs };
    };
    expect(await backend.list('records/')).toEqual([stated('records/a/one.json'), { ...stated('records/b/two.json'), size: 1 }]);
    expect(await backend.list('refs/')).toEqual([{ ...stated('refs/branches/main'), size: 4 }]);
    expect((await backend.list('rec')).map((k) => k.key)).toEqual(['records/a/one.json', 'records/b/two.json']);
    expect(await backend.list('records/a/one.json/')).toEqual([]);
    expect(await backend.list('nothing/')).toEqual([]);
  });

  it('orders startAfter by UTF-8 bytes, as S3 does', () => {
    // U+FF61 is EF BD A1 in UTF-8, U+1F600 is F0 9F 98 80: after it, though UTF-16 puts it first.
    expect(sortsAfter('\u{1F600}', '\uFF61')).toBe(true);
    expect(sortsAfter('\uFF61', '\u{1F600}')).toBe(false);
    expect(sortsAfter('b', 'b')).toBe(false);
    expect(sortsAfter('b', 'a')).toBe(true);
  });

  it('reports a read that fails for another reason than absence', async () => {
    const { backend, root } = backendIn();
    mkdirSync(path.join(root, 'a/dir'), { recursive: true });
    await expect(backend.get('a/dir')).rejects.toMatchObject({ code: 'EISDIR' });
    expect(await backend.get('a/none')).toBeUndefined();
  });

  it('breaks at once a ref lock whose process on this machine is gone', async () => {
    const { backend, root } = backendIn();
    place(root, 'refs/branches/main.lock', `${hostname()}\n${GONE_PID}\n`);
    expect(await backend.compareAndSwap('refs/branches/main', undefined, Buffer.from('h1'))).toBe(true);
    expect((await backend.get('refs/branches/main'))?.toString()).toBe('h1');
  });

  it('breaks a lock of another machine only once it is over 30 s old', async () => {
    const { backend, root } = backendIn();
    const lock = path.join(root, 'refs/branches/main.lock');
    place(root, 'refs/branches/main.lock', 'elsewhere\n1\n');
    const { swap } = await swapStillWaiting(backend);
    const old = new Date(Date.now() - 31_000);
    utimesSync(lock, old, old);
    expect(await swap).toBe(true);
  });

  it('waits on a lock held by a live process of this machine', async () => {
    const { backend, root } = backendIn();
    const lock = path.join(root, 'refs/branches/main.lock');
    place(root, 'refs/branches/main.lock', `${hostname()}\n${process.pid}\n`);
    const { swap } = await swapStillWaiting(backend);
    rmSync(lock);
    expect(await swap).toBe(true);
  });
});
