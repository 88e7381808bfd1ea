import { createHash } from 'node:crypto';
import {
  constants as fsConstants,
  promises as fsPromises,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import os, { hostname } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FsBackend } from '../../../src/archive/backends/fs.js';
import { MemBackend } from '../../../src/archive/backends/mem.js';

/**
 * The filesystem backend's own files and failures (README, "Storage"): temp files of writers that
 * died are swept, folder stamps tell whether a folder changed, a mount without hard links still
 * takes create-only writes, and a write that fails says why in the user's terms.
 */
const roots: string[] = [];
function backendIn(): { backend: FsBackend; root: string } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'attic-fs-files-'));
  roots.push(root);
  return { backend: new FsBackend(root), root };
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A pid no process has: above the kernel's pid_max (4,194,304 at most). */
const GONE_PID = 4_194_999;
/** How a temp file names the machine that wrote it: the first 8 hex digits of its name's SHA-256. */
const HOST_TAG = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);
const TEMPS = '.tmp-files';

function placeTemp(root: string, name: string, ageMinutes = 0): void {
  const file = path.join(root, TEMPS, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, 'half');
  const at = new Date(Date.now() - ageMinutes * 60_000);
  utimesSync(file, at, at);
}

const temps = (root: string): string[] => readdirSync(path.join(root, TEMPS)).sort();

describe('temp files of writers that died', () => {
  it('are removed before the first write: of a process here that is gone, or an hour old; others are kept', async () => {
    const { backend, root } = backendIn();
    placeTemp(root, `.tmp-${HOST_TAG}-${GONE_PID}-aa`);
    placeTemp(root, `.tmp-${HOST_TAG}-${process.pid}-bb`);
    placeTemp(root, '.tmp-0badc0de-1-cc', 59);
    placeTemp(root, '.tmp-0badc0de-1-dd', 61);
    expect(await backend.putIfAbsent('records/a.json', Buffer.from('{}'))).toBe(true);
    expect(temps(root)).toEqual([`.tmp-${HOST_TAG}-${process.pid}-bb`, '.tmp-0badc0de-1-cc'].sort());
    // Once per process: later writes do not read the folder again.
    placeTemp(root, `.tmp-${HOST_TAG}-${GONE_PID}-ee`);
    expect(await backend.putIfAbsent('records/b.json', Buffer.from('{}'))).toBe(true);
    expect(temps(root)).toContain(`.tmp-${HOST_TAG}-${GONE_PID}-ee`);
  });
});

describe('a folder stamp', () => {
  it('names each folder by inode and modification time, - when absent, and changes when a key is added', async () => {
    const { backend, root } = backendIn();
    await backend.putIfAbsent('records/captures/a.json', Buffer.from('{}'));
    const dir = path.join(root, 'records', 'captures');
    const past = Math.floor(Date.now() / 1000) - 10;
    utimesSync(dir, past, past);
    const stat = statSync(dir, { bigint: true });
    expect(await backend.folderStamp(['records/captures/', 'records/none/'])).toBe(`${stat.ino}:${stat.mtimeNs} -`);
    await backend.putIfAbsent('records/captures/b.json', Buffer.from('{}'));
    utimesSync(dir, past + 1, past + 1);
    expect(await backend.folderStamp(['records/captures/'])).toBe(`${stat.ino}:${BigInt(past + 1) * 1_000_000_000n}`);
  });

  it('is not trusted (null) for a folder changed in the last two seconds, and trusted from then on', async () => {
    const { backend, root } = backendIn();
    await backend.putIfAbsent('records/captures/a.json', Buffer.from('{}'));
    const dir = path.join(root, 'records', 'captures');
    expect(await backend.folderStamp(['records/none/', 'records/captures/'])).toBeNull();
    const at = Math.floor(Date.now() / 1000) - 100;
    utimesSync(dir, at, at);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime((at + 2) * 1000 - 1);
    expect(await backend.folderStamp(['records/captures/'])).toBeNull();
    vi.setSystemTime((at + 2) * 1000);
    expect(await backend.folderStamp(['records/captures/'])).not.toBeNull();
  });
});

describe('a create-only write', () => {
  it.each(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV'])('lands on a mount without hard links (%s), leaving no temp file', async (code) => {
    const { backend, root } = backendIn();
    vi.spyOn(fsPromises, 'link').mockRejectedValue(Object.assign(new Error(code), { code }));
    expect(await backend.putIfAbsent('chunks/ab/cd', Buffer.from('bytes'))).toBe(true);
    expect((await backend.get('chunks/ab/cd'))?.toString()).toBe('bytes');
    expect(await backend.putIfAbsent('chunks/ab/cd', Buffer.from('other'))).toBe(false);
    expect(temps(root)).toEqual([]);
  });

  it('that fails otherwise says so, leaving no temp file', async () => {
    const { backend, root } = backendIn();
    vi.spyOn(fsPromises, 'link').mockRejectedValue(Object.assign(new Error('no space'), { code: 'ENOSPC' }));
    await expect(backend.putIfAbsent('chunks/ab/cd', Buffer.from('bytes'))).rejects.toMatchObject({
      code: 'no-space',
      message: expect.stringContaining(`the archive ${root}`),
    });
    expect(await backend.has('chunks/ab/cd')).toBe(false);
    expect(temps(root)).toEqual([]);
  });

  it('to a read-only mount names that as the cause, not the missing folder its mkdir reports', async () => {
    const { backend, root } = backendIn();
    vi.spyOn(fsPromises, 'mkdir').mockRejectedValue(Object.assign(new Error('mkdir'), { code: 'ENOENT' }));
    const access = fsPromises.access.bind(fsPromises);
    // Only the question whether the root can be written meets the read-only mount.
    vi.spyOn(fsPromises, 'access').mockImplementation(async (file, mode) => {
      if (file === root && mode === fsConstants.W_OK) throw Object.assign(new Error('read-only'), { code: 'EROFS' });
      return access(file, mode);
    });
    await expect(backend.putIfAbsent('chunks/ab/cd', Buffer.from('x'))).rejects.toMatchObject({
      code: 'read-only',
      message: `The archive ${root} cannot be written (EROFS). Give dbtattic write access to it, or point --store at a writable directory.`,
    });
  });

  it('to a folder that is missing for good reports the missing folder', async () => {
    const { backend } = backendIn();
    vi.spyOn(fsPromises, 'mkdir').mockRejectedValue(Object.assign(new Error('mkdir says ENOENT'), { code: 'ENOENT' }));
    await expect(backend.putIfAbsent('chunks/ab/cd', Buffer.from('x'))).rejects.toMatchObject({ code: 'ENOENT', message: 'mkdir says ENOENT' });
  });

  it('under a root that is a file fails as such', async () => {
    const { root } = backendIn();
    writeFileSync(path.join(root, 'plain-file'), 'x');
    await expect(new FsBackend(path.join(root, 'plain-file', 'archive')).putIfAbsent('a', Buffer.from('x'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });
});

describe('keys on the filesystem', () => {
  it('list fails when a folder cannot be read for another reason than being absent', async () => {
    const { backend } = backendIn();
    await backend.putIfAbsent('records/a.json', Buffer.from('{}'));
    vi.spyOn(fsPromises, 'readdir').mockRejectedValue(Object.assign(new Error('i/o'), { code: 'EIO' }));
    await expect(backend.list('records/')).rejects.toMatchObject({ code: 'EIO' });
  });

  it('are there or not, and a look that fails for another reason is reported', async () => {
    const { backend, root } = backendIn();
    await backend.putIfAbsent('records/a.json', Buffer.from('{}'));
    expect(await backend.has('records/a.json')).toBe(true);
    expect(await backend.has('records/b.json')).toBe(false);
    await expect(backend.has('records/a.json/under-a-file')).rejects.toMatchObject({ code: 'ENOTDIR' });
    expect(backend.location).toBe(root);
    expect(new MemBackend().location).toBe('mem:');
  });

  it('swap from absent to absent (nothing to delete), and never create over a value', async () => {
    for (const backend of [backendIn().backend, new MemBackend()]) {
      expect(await backend.compareAndSwap('refs/branches/x', undefined, undefined)).toBe(true);
      expect(await backend.compareAndSwap('refs/branches/x', undefined, Buffer.from('h1'))).toBe(true);
      expect(await backend.compareAndSwap('refs/branches/x', undefined, Buffer.from('h2'))).toBe(false);
      expect((await backend.get('refs/branches/x'))?.toString()).toBe('h1');
    }
  });

  it('a swap whose rename fails says so, and leaves the value and no temp file', async () => {
    const { backend, root } = backendIn();
    await backend.compareAndSwap('refs/branches/x', undefined, Buffer.from('h1'));
    vi.spyOn(fsPromises, 'rename').mockRejectedValue(Object.assign(new Error('no space'), { code: 'ENOSPC' }));
    await expect(backend.compareAndSwap('refs/branches/x', Buffer.from('h1'), Buffer.from('h2'))).rejects.toMatchObject({ code: 'no-space' });
    vi.restoreAllMocks();
    expect((await backend.get('refs/branches/x'))?.toString()).toBe('h1');
    expect(temps(root)).toEqual([]);
    // And its lock is gone: the next swap goes through.
    expect(await backend.compareAndSwap('refs/branches/x', Buffer.from('h1'), Buffer.from('h2'))).toBe(true);
  });
});

describe('a ref lock', () => {
  it('names this machine and process while held, so a waiter can tell when its holder is gone', async () => {
    const { backend, root } = backendIn();
    const lock = path.join(root, 'refs/branches/main.lock');
    const readFile = fsPromises.readFile.bind(fsPromises);
    let held: string | undefined;
    // The swap reads the ref under its lock: look at the lock then.
    vi.spyOn(fsPromises, 'readFile').mockImplementation((async (file: string, options?: unknown) => {
      if (file === path.join(root, 'refs/branches/main')) held = await readFile(lock, 'utf8');
      return readFile(file, options as BufferEncoding);
    }) as typeof fsPromises.readFile);
    expect(await backend.compareAndSwap('refs/branches/main', undefined, Buffer.from('h1'))).toBe(true);
    expect(held).toBe(`${hostname()}\n${process.pid}\n`);
  });

  it('that cannot be made for another reason than a holder fails the swap, as the disk refusal it is', async () => {
    const { backend } = backendIn();
    vi.spyOn(fsPromises, 'open').mockRejectedValue(Object.assign(new Error('denied'), { code: 'EACCES' }));
    await expect(backend.compareAndSwap('refs/branches/main', undefined, Buffer.from('h1'))).rejects.toMatchObject({ code: 'read-only' });
  });

  it('whose owner cannot be written (the disk full) is not left behind', async () => {
    const { backend, root } = backendIn();
    const open = fsPromises.open.bind(fsPromises);
    vi.spyOn(fsPromises, 'open').mockImplementation(async (...args: Parameters<typeof fsPromises.open>) => {
      const handle = await open(...args);
      if (String(args[0]).endsWith('.lock')) vi.spyOn(handle, 'writeFile').mockRejectedValue(Object.assign(new Error('full'), { code: 'ENOSPC' }));
      return handle;
    });
    await expect(backend.compareAndSwap('refs/branches/main', undefined, Buffer.from('h1'))).rejects.toMatchObject({ code: 'no-space' });
    expect(existsSync(path.join(root, 'refs/branches/main.lock'))).toBe(false);
  });

  it('of another machine is broken once older than 30 s, not at 30 s', async () => {
    const { backend, root } = backendIn();
    const lock = path.join(root, 'refs/branches/main.lock');
    mkdirSync(path.dirname(lock), { recursive: true });
    writeFileSync(lock, 'elsewhere\n1\n');
    const at = Math.floor(Date.now() / 1000) - 100;
    utimesSync(lock, at, at);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(at * 1000 + 30_000);
    const { still, swap } = await waits(backend);
    expect(still).toBe(true);
    vi.setSystemTime(at * 1000 + 30_001);
    expect(await swap).toBe(true);
  });

  /** Whether a swap of refs/branches/main is still waiting on its lock a moment later. */
  async function waits(backend: FsBackend): Promise<{ still: boolean; swap: Promise<boolean> }> {
    let done = false;
    const swap = backend.compareAndSwap('refs/branches/main', undefined, Buffer.from('h1')).then((ok) => ((done = true), ok));
    await new Promise((resolve) => setTimeout(resolve, 250));
    return { still: !done, swap };
  }

  it.each([
    ['of another machine, whatever its pid is here', `elsewhere\n${GONE_PID}\n`],
    ['of this machine naming no process', `${hostname()}\n0\n`],
    ['of this machine whose pid is not a number', `${hostname()}\nabc\n`],
  ])('is waited on while fresh: one %s', async (_, owner) => {
    const { backend, root } = backendIn();
    const lock = path.join(root, 'refs/branches/main.lock');
    mkdirSync(path.dirname(lock), { recursive: true });
    writeFileSync(lock, owner);
    const { still, swap } = await waits(backend);
    expect(still).toBe(true);
    rmSync(lock);
    expect(await swap).toBe(true);
  });
});
