import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { advanceBranch, listBranches, readBranch } from '../../../src/archive/branches.js';
import { FsBackend } from '../../../src/archive/backends/fs.js';

const tempRoot = (): string => mkdtempSync(path.join(os.tmpdir(), 'attic-refs-'));

describe('branch refs on a directory', () => {
  it('let a branch and a branch named under it coexist, in either order', async () => {
    const backend = new FsBackend(tempRoot());
    const now = new Date('2026-01-01T00:00:00Z');
    await advanceBranch(backend, 'feature', '0001', 'inv-1', now);
    await advanceBranch(backend, 'feature/x', '0002', 'inv-2', now);
    await advanceBranch(backend, 'release/1.2', '0003', 'inv-3', now);
    await advanceBranch(backend, 'release', '0004', 'inv-4', now);
    expect((await listBranches(backend)).map((b) => [b.name, b.head_invocation_id])).toEqual([
      ['feature', 'inv-1'],
      ['feature/x', 'inv-2'],
      ['release', 'inv-4'],
      ['release/1.2', 'inv-3'],
    ]);
  });

  it('never move a head backwards', async () => {
    const backend = new FsBackend(tempRoot());
    const now = new Date('2026-01-01T00:00:00Z');
    await advanceBranch(backend, 'main', '0009', 'newer', now);
    await advanceBranch(backend, 'main', '0005', 'older', now);
    expect((await readBranch(backend, 'main'))?.head_invocation_id).toBe('newer');
  });

  it('break at once a lock left by a process of this machine that is gone', async () => {
    const root = tempRoot();
    mkdirSync(path.join(root, 'refs', 'branches'), { recursive: true });
    // A pid above the kernel's pid_max cannot be alive.
    writeFileSync(path.join(root, 'refs', 'branches', 'main.lock'), `${hostname()}\n99999999\n`);
    const backend = new FsBackend(root);
    await advanceBranch(backend, 'main', '0001', 'inv', new Date());
    expect((await readBranch(backend, 'main'))?.head_invocation_id).toBe('inv');
  }, 15_000); // a lock judged only by age would hold for 30 s

  it('break within a second a lock whose owner was never written (killed, or the disk full, between open and write)', async () => {
    const root = tempRoot();
    mkdirSync(path.join(root, 'refs', 'branches'), { recursive: true });
    writeFileSync(path.join(root, 'refs', 'branches', 'main.lock'), '');
    const backend = new FsBackend(root);
    await advanceBranch(backend, 'main', '0001', 'inv', new Date());
    expect((await readBranch(backend, 'main'))?.head_invocation_id).toBe('inv');
  }, 15_000); // judged only by age, it would hold for 30 s
});
