import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { sameBytes, type Backend, type StoredKey } from '../backend.js';

/** Temp files start with this, so list() and verify can tell them from real keys. */
export const TEMP_PREFIX = '.tmp-';
const LOCK_SUFFIX = '.lock';
const STALE_LOCK_MS = 30_000;

/**
 * A backend on a local directory. Values are written to a temp file, fsynced, then hard-linked
 * into place: link() fails when the name exists, which makes "create only" atomic and leaves an
 * existing object untouched, even with many writers at once.
 */
export class FsBackend implements Backend {
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
    const temp = await this.writeTemp(target, data);
    try {
      await fs.link(temp, target);
      return true;
    } catch (error) {
      if (isCode(error, 'EEXIST')) return false;
      throw error;
    } finally {
      await fs.rm(temp, { force: true });
    }
  }

  private async writeTemp(target: string, data: Uint8Array): Promise<string> {
    const dir = path.dirname(target);
    await fs.mkdir(dir, { recursive: true });
    const temp = path.join(dir, `${TEMP_PREFIX}${randomBytes(8).toString('hex')}`);
    const handle = await fs.open(temp, 'wx');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    return temp;
  }

  async list(prefix: string): Promise<StoredKey[]> {
    const keys: StoredKey[] = [];
    const base = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
    await this.walk(base, keys);
    return keys.filter((entry) => entry.key.startsWith(prefix));
  }

  private async walk(dirKey: string, out: StoredKey[]): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(this.file(dirKey), { withFileTypes: true });
    } catch (error) {
      if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return;
      throw error;
    }
    for (const entry of entries) {
      if (entry.name.startsWith(TEMP_PREFIX) || entry.name.endsWith(LOCK_SUFFIX)) continue;
      const key = dirKey ? `${dirKey}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await this.walk(key, out);
      else if (entry.isFile()) out.push({ key, size: (await fs.stat(this.file(key))).size });
    }
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
        await fs.rename(await this.writeTemp(target, next), target);
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
        const handle = await fs.open(lockFile, 'wx');
        await handle.writeFile(`${process.pid}\n`);
        await handle.close();
        return () => fs.rm(lockFile, { force: true });
      } catch (error) {
        if (!isCode(error, 'EEXIST')) throw error;
        await breakStaleLock(lockFile);
        await sleep(Math.min(5 + attempt * 5, 100));
      }
    }
  }
}

async function breakStaleLock(lockFile: string): Promise<void> {
  try {
    const stat = await fs.stat(lockFile);
    if (Date.now() - stat.mtimeMs > STALE_LOCK_MS) await fs.rm(lockFile, { force: true });
  } catch (error) {
    if (!isCode(error, 'ENOENT')) throw error;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}
