import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

/**
 * Writes one of capture's caches (stat cache, SQL cache) through a temp file and a rename: two
 * captures at once each leave a whole cache. A cache only saves work, so a disk too full or
 * read-only to hold it costs the next capture some hashing, nothing more (the archive write
 * says what is wrong with the disk): the error is dropped, and so is the temp file.
 */
export async function saveCacheFile(file: string, text: string): Promise<void> {
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await removeAbandonedTemps(file);
    await fs.writeFile(temp, text);
    await fs.rename(temp, file);
  } catch {
    await fs.rm(temp, { force: true }).catch(() => undefined);
  }
}

const ABANDONED_MS = 10 * 60 * 1000;

/** A capture killed between write and rename leaves its temp; one untouched for minutes is nobody's. */
async function removeAbandonedTemps(file: string): Promise<void> {
  const prefix = `${path.basename(file)}.`;
  for (const name of await fs.readdir(path.dirname(file))) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const temp = path.join(path.dirname(file), name);
    const stat = await fs.stat(temp).catch(() => null);
    if (stat && Date.now() - stat.mtimeMs > ABANDONED_MS) await fs.rm(temp, { force: true });
  }
}
