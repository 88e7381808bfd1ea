import path from 'node:path';
import { AtticError } from '../errors.js';
import type { Backend } from './backend.js';
import { FsBackend } from './backends/fs.js';
import { MemBackend } from './backends/mem.js';
import { FORMAT_KEY } from './layout.js';

export const ARCHIVE_FORMAT = 'dbtattic-archive 1';

/**
 * Picks a backend by the location's scheme: a plain path or file: URL is a directory, mem: is
 * in-memory (tests). Object storage (s3://) is designed for but not built yet.
 */
export function backendFor(location: string): Backend {
  if (location === 'mem:' || location.startsWith('mem:')) return new MemBackend();
  if (location.startsWith('file://')) return new FsBackend(new URL(location).pathname);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) {
    throw new AtticError('config', `Archive location '${redactUrl(location)}' uses a scheme dbtattic does not support yet. Use a local directory.`);
  }
  return new FsBackend(path.resolve(location));
}

/** Opens an archive, writing its FORMAT file on first use; refuses one of an unknown format. */
export async function openArchive(location: string, options: { create: boolean }): Promise<Backend> {
  const backend = backendFor(location);
  const format = await backend.get(FORMAT_KEY);
  if (format === undefined) {
    if (!options.create) {
      throw new AtticError('not-found', `No archive at ${backend.location}. Run 'dbtattic capture' in a dbt project first.`);
    }
    await backend.putIfAbsent(FORMAT_KEY, Buffer.from(`${ARCHIVE_FORMAT}\n`));
    return backend;
  }
  if (format.toString('utf8').trim() !== ARCHIVE_FORMAT) {
    throw new AtticError(
      'archive-format',
      `The archive at ${backend.location} has format '${format.toString('utf8').trim()}', and this dbtattic reads '${ARCHIVE_FORMAT}'. Upgrade dbtattic.`,
    );
  }
  return backend;
}

/** A URL with any user or password removed, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
}
