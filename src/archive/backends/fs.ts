import { createHash, randomBytes } from 'node:crypto';
import { constants as fsConstants, promises as fs, type Dirent } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { AtticError, asDiskError } from '../../errors.js';
import { processIsGone, processIsGoneOn } from '../../vocab/index.js';
import { sameBytes, type Backend, type StoredKey } from '../backend.js';

/** Temp files start with this, so list() and verify can tell them from real keys. */
export const TEMP_PREFIX = '.tmp-';
/**
 * Every temp file lives in this one directory (same file system, so link and rename stay
 * atomic): a writer killed mid-write leaves its temp here, and the next writer can find and
 * remove it with one directory read instead of a walk of the archive.
 */
const TEMP_DIR = `${TEMP_PREFIX}files`;
const ABANDONED_TEMP_MS = 60 * 60 * 1000;
const HOST_TAG = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);
const LOCK_SUFFIX = '.lock';
const STALE_LOCK_MS = 30_000;
const RACY_NS = 2_000_000_000n;
const NO_HARD_LINKS = ['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV'];

/**
 * A backend on a local directory. Values are written to a temp file, fsynced, then hard-linked
 * into place: link() fails when the name exists, which makes "create only" atomic and leaves an
 * existing object untouched, even with many writers at once.
 */
export class FsBackend implements Backend {
  readonly capabilities = { createOnly: true, compareAndSwap: true };
  private tempDir: Promise<void> | undefined;

  constructor(readonly root: string) {}

  get location(): string {
    return this.root;
  }

  private file(key: string): string {
    return path.join(this.root, ...key.split('/'));
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await fs.readFile(this.file(key));
    } catch (error) {
      if (isCode(error, 'ENOENT')) return undefined;
      // A path through a file: the archive named is no directory (a typo, or a file given for it).
      if (isCode(error, 'ENOTDIR'))
        throw new AtticError(
          'usage',
          `${this.root} is not an archive: a path on the way to ${key} is a file, not a directory. Name a directory (or s3://bucket/prefix).`,
        );
      throw error;
    }
  }

  async has(key: string): Promise<boolean> {
    try {
      await fs.access(this.file(key));
      return true;
    } catch (error) {
      if (isCode(error, 'ENOENT')) return false;
      throw error;
    }
  }

  async putIfAbsent(key: string, data: Uint8Array): Promise<boolean> {
    const target = this.file(key);
    if (await this.has(key)) return false;
    const temp = await this.writeTemp(data);
    try {
      await inDirectory(target, () => fs.link(temp, target));
      return true;
    } catch (error) {
      if (isCode(error, 'EEXIST')) return false;
      if (!NO_HARD_LINKS.some((code) => isCode(error, code))) throw asWriteError(this.root, error);
      // Some mounts (SMB, some FUSE caches) have no hard links. A rename is still atomic; it may
      // replace what a concurrent writer just put there, but an object's key names its bytes and
      // a record's key names the fact it records, so nothing is lost.
      await inDirectory(target, () => fs.rename(temp, target));
      return true;
    } finally {
      await fs.rm(temp, { force: true });
    }
  }

  /**
   * Writes `data` to a fsynced temp file; a failed write (a full disk) leaves no temp behind.
   * Directories are made when a write finds them missing, not before each one: a capture writes
   * hundreds of chunks, and two mkdir calls each were a fifth of the file system calls.
   */
  private async writeTemp(data: Uint8Array): Promise<string> {
    const dir = path.join(this.root, TEMP_DIR);
    try {
      await (this.tempDir ??= this.prepareTempDir(dir));
      const temp = path.join(dir, `${TEMP_PREFIX}${HOST_TAG}-${process.pid}-${randomBytes(8).toString('hex')}`);
      await inDirectory(temp, () => writeSynced(temp, data));
      return temp;
    } catch (error) {
      throw asWriteError(this.root, await rootRefusal(this.root, error));
    }
  }

  /** Once per process, before its first write: temps of writers that died are nobody's. */
  private prepareTempDir(dir: string): Promise<void> {
    const prepared = fs.mkdir(dir, { recursive: true }).then(() => this.sweepAbandonedTemps(dir));
    // A failure (a read-only mount) is not kept: the next write asks again.
    prepared.catch(() => (this.tempDir = undefined));
    return prepared;
  }

  private async sweepAbandonedTemps(dir: string): Promise<void> {
    for (const name of await fs.readdir(dir)) {
      const file = path.join(dir, name);
      const [host, pid] = name.slice(TEMP_PREFIX.length).split('-');
      const ownerGone = host === HOST_TAG && pid !== undefined && processIsGone(Number(pid));
      const stat = ownerGone ? null : await fs.stat(file).catch(() => null);
      if (ownerGone || (stat && Date.now() - stat.mtimeMs > ABANDONED_TEMP_MS)) await fs.rm(file, { force: true });
    }
  }

  async list(prefix: string, startAfter?: string): Promise<StoredKey[]> {
    const keys: StoredKey[] = [];
    const base = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
    await this.walk(base, keys);
    return keys.filter((entry) => entry.key.startsWith(prefix) && (startAfter === undefined || sortsAfter(entry.key, startAfter)));
  }

  private async walk(dirKey: string, out: StoredKey[]): Promise<void> {
    let entries: Dirent[];
    try {
      entries = await fs.readdir(this.file(dirKey), { withFileTypes: true });
    } catch (error) {
      if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return;
      throw error;
    }
    for (const entry of entries) {
      if (entry.name.startsWith(TEMP_PREFIX) || entry.name.endsWith(LOCK_SUFFIX) || entry.name.endsWith('.stale')) continue;
      const key = dirKey ? `${dirKey}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await this.walk(key, out);
      else if (entry.isFile()) {
        const stat = await fs.stat(this.file(key)).catch((error: unknown) => (isCode(error, 'ENOENT') ? null : Promise.reject(error)));
        // A key deleted between readdir and stat (prune beside a listing) is simply gone.
        if (stat) out.push({ key, size: stat.size, modifiedMs: stat.mtimeMs });
      }
    }
  }

  /**
   * Folder modification times, in nanoseconds. A folder changed in the last two seconds is not
   * trusted (git's "racy" rule): the clock's tick can be coarse, so a change made just after
   * this reading could leave the time as it was.
   */
  async folderStamp(prefixes: readonly string[]): Promise<string | null> {
    const now = BigInt(Date.now()) * 1_000_000n;
    const parts: string[] = [];
    for (const prefix of prefixes) {
      const stat = await fs
        .stat(this.file(prefix.replace(/\/$/, '')), { bigint: true })
        .catch((error: unknown) => (isCode(error, 'ENOENT') ? null : Promise.reject(error)));
      if (stat && stat.mtimeNs > now - RACY_NS) return null;
      parts.push(stat ? `${stat.ino}:${stat.mtimeNs}` : '-');
    }
    return parts.join(' ');
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.file(key), { force: true });
  }

  async compareAndSwap(key: string, expected: Uint8Array | undefined, next: Uint8Array | undefined): Promise<boolean> {
    const target = this.file(key);
    const release = await this.lock(target);
    try {
      if (!sameBytes(await this.get(key), expected)) return false;
      if (next === undefined) {
        await fs.rm(target, { force: true });
      } else {
        const temp = await this.writeTemp(next);
        await fs.rename(temp, target).catch(async (error: unknown) => {
          await fs.rm(temp, { force: true });
          throw asWriteError(this.root, error);
        });
      }
      return true;
    } finally {
      await release();
    }
  }

  /** An O_EXCL lock file beside the ref; a lock left by a killed process expires. */
  private async lock(target: string): Promise<() => Promise<void>> {
    const lockFile = target + LOCK_SUFFIX;
    await fs.mkdir(path.dirname(lockFile), { recursive: true });
    for (let attempt = 0; ; attempt++) {
      try {
        await writeLock(lockFile);
        return () => fs.rm(lockFile, { force: true });
      } catch (error) {
        if (!isCode(error, 'EEXIST')) throw asWriteError(this.root, error);
        await breakStaleLock(lockFile);
        await sleep(Math.min(5 + attempt * 5, 100));
      }
    }
  }
}

/** S3's order: by UTF-8 bytes, which is not JavaScript's UTF-16 order for every string. */
export function sortsAfter(key: string, startAfter: string): boolean {
  return Buffer.compare(Buffer.from(key), Buffer.from(startAfter)) > 0;
}

/** Takes the lock file, or leaves none: a lock without its owner (the disk full) would stall the next taker. */
async function writeLock(lockFile: string): Promise<void> {
  const handle = await fs.open(lockFile, 'wx');
  try {
    await handle.writeFile(lockOwner());
  } catch (error) {
    await handle.close();
    await fs.rm(lockFile, { force: true });
    throw error;
  }
  await handle.close();
}

/** A lock file still empty this long after it was made lost its owner between open and write. */
const OWNERLESS_LOCK_MS = 1000;

function lockOwner(): string {
  return `${hostname()}\n${process.pid}\n`;
}

/**
 * A lock whose owner is gone is broken at once when the owner was a process on this machine
 * (a killed capture must not stall the next one), else once it is old. It is broken by
 * renaming it aside and checking that what was renamed is the lock judged stale: a waiter that
 * lost the race to another breaker must not remove the lock that one just took.
 */
async function breakStaleLock(lockFile: string): Promise<void> {
  let owner: string;
  let age: number;
  try {
    [owner, age] = await Promise.all([fs.readFile(lockFile, 'utf8'), fs.stat(lockFile).then((s) => Date.now() - s.mtimeMs)]);
  } catch (error) {
    if (isCode(error, 'ENOENT')) return;
    throw error;
  }
  const ownerless = owner === '' && age > OWNERLESS_LOCK_MS;
  if (!ownerless && !ownerIsGone(owner) && age <= STALE_LOCK_MS) return;
  const aside = `${lockFile}.${randomBytes(6).toString('hex')}.stale`;
  try {
    await fs.rename(lockFile, aside);
  } catch (error) {
    if (isCode(error, 'ENOENT')) return;
    throw error;
  }
  if ((await fs.readFile(aside, 'utf8')) !== owner) await fs.link(aside, lockFile).catch(() => undefined);
  await fs.rm(aside, { force: true });
}

function ownerIsGone(owner: string): boolean {
  const [host, pid] = owner.split('\n');
  return processIsGoneOn(host, pid);
}

/** Runs `write`, which puts `file` in place; if its directory is missing, makes it and runs it again. */
async function inDirectory<T>(file: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!isCode(error, 'ENOENT')) throw error;
    await fs.mkdir(path.dirname(file), { recursive: true });
    return write();
  }
}

async function writeSynced(file: string, data: Uint8Array): Promise<void> {
  const handle = await fs.open(file, 'wx');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await fs.rm(file, { force: true });
    throw error;
  }
  await handle.close();
}

/**
 * A recursive mkdir on a read-only mount says ENOENT, not EROFS: ask the root itself whether it
 * can be written, so the message names the real cause.
 */
async function rootRefusal(root: string, error: unknown): Promise<unknown> {
  if (!isCode(error, 'ENOENT')) return error;
  return fs.access(root, fsConstants.W_OK).then(
    () => error,
    (refusal: unknown) => refusal,
  );
}

function asWriteError(root: string, error: unknown): unknown {
  return asDiskError(error, `the archive ${root}`, root);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}
