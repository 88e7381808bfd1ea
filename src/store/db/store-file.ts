import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { processIsGoneOn } from '../../vocab/index.js';
import { AtticError } from '../../errors.js';

/**
 * The store file is a cache of the archive, so damage to it is never worth an error: a file
 * DuckDB cannot open (empty, truncated, random bytes, a block failing its checksum) is moved
 * aside, kept for whoever wants to look at it, and the store is derived again from the archive.
 */
export interface MovedAside {
  from: string;
  to: string;
  reason: string;
}

const UNREADABLE =
  /not a valid DuckDB database file|Could not read enough bytes|Corrupt database file|does not match stored checksum|Serialization Error|Failed to load metadata|INTERNAL Error/i;

export function isUnreadableStore(error: unknown): boolean {
  return error instanceof Error && UNREADABLE.test(error.message);
}

/** Renames the store file (and its WAL, which belongs to it) to `<file>.unreadable-<time>`. */
export async function moveStoreAside(file: string, error: unknown): Promise<MovedAside> {
  const to = `${file}.unreadable-${new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}`;
  await fs.rename(file, to);
  await fs.rename(`${file}.wal`, `${to}.wal`).catch(() => undefined);
  return { from: file, to, reason: firstLine(error) };
}

const NO_SPACE = /No space left on device|ENOSPC|disk is full|Could not write all bytes/i;
const READ_ONLY = /Read-only file system|EROFS|Permission denied|EACCES|EPERM|Cannot open database .* in read-only mode/i;

export function isReadOnlyStore(error: unknown): boolean {
  return error instanceof Error && READ_ONLY.test(error.message);
}

/**
 * A store that cannot be written (its disk is full, its file system is read-only): a message
 * that names the path and the fix, never an internal error. Other errors pass through.
 */
export function asStoreWriteError(file: string, error: unknown): unknown {
  if (error instanceof Error && NO_SPACE.test(error.message)) {
    return new AtticError(
      'no-space',
      `No space left to write the store ${file}. Free space on that disk (the archive is untouched; the store catches up on the next command).`,
      { path: file },
    );
  }
  if (isReadOnlyStore(error)) {
    return new AtticError(
      'read-only',
      `The store ${file} cannot be written (${firstLine(error)}). Give dbtattic write access to it, or point --store at a writable directory.`,
      { path: file },
    );
  }
  return error;
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? text;
}

const ABANDONED_MS = 60 * 60 * 1000;
const REBUILD = '.rebuild-';

/**
 * Where a rebuild or a compaction builds its new store beside `file` (its WAL, temp directory
 * and compacted copy take further suffixes): the name says which process on which machine, so
 * that what a killed one left is known for garbage at once, not after an hour.
 */
export function rebuildFileOf(file: string): string {
  return `${file}${REBUILD}${randomBytes(4).toString('hex')}~${process.pid}~${hostname()}~`;
}

/**
 * A rebuild or compaction killed midway leaves its files behind, up to twice the store: they
 * go once their process on this machine is gone, and any other untouched for an hour (another
 * machine's, or one named before names said whose).
 */
export async function removeAbandonedRebuilds(file: string): Promise<void> {
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}${REBUILD}`;
  for (const name of await fs.readdir(dir)) {
    if (!name.startsWith(prefix)) continue;
    const stat = await fs.stat(path.join(dir, name)).catch(() => null);
    if (stat && (ownerIsGone(name.slice(prefix.length)) || Date.now() - stat.mtimeMs > ABANDONED_MS))
      await fs.rm(path.join(dir, name), { force: true, recursive: true });
  }
}

function ownerIsGone(rest: string): boolean {
  const [, pid, host] = rest.split('~');
  return processIsGoneOn(host, pid);
}
