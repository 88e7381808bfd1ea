import path from 'node:path';
import { AtticError } from '../errors.js';
import { recordArchiveFormat, type ArchiveFormatVersion } from './archive-format.js';
import type { Backend } from './backend.js';
import { FsBackend } from './backends/fs.js';
import { MemBackend } from './backends/mem.js';
import { isS3Uri } from './backends/s3/location.js';

import { CAPTURE_RECORDS_PREFIX, CHUNKS_PREFIX, FILES_PREFIX, FORMAT_KEY, INVOCATION_RECORDS_PREFIX, REFS_PREFIX } from './layout.js';

/**
 * The FORMAT files this dbtattic reads, and the chunking each archive is cut with
 * (chunking.ts): objects and records are the same in both; an archive is cut as it was created,
 * so its captures keep sharing chunks with its old ones.
 */
const ARCHIVE_FORMATS: Readonly<Record<string, ArchiveFormatVersion>> = { 'dbtattic-archive 1': 1, 'dbtattic-archive 2': 2 };
/** The format a new archive is created in. */
export const ARCHIVE_FORMAT = 'dbtattic-archive 2';

/** The format a FORMAT file's text names, if this dbtattic reads it. */
export function archiveFormatOf(text: string | undefined): ArchiveFormatVersion | undefined {
  return text !== undefined && Object.hasOwn(ARCHIVE_FORMATS, text) ? ARCHIVE_FORMATS[text] : undefined;
}

/**
 * How to reach a remote archive, as configuration gives it: the raw `s3:` mapping, the local
 * directory for cached facts, the environment (AWS_* variables; DBTATTIC_S3_TRACE=1 prints
 * every request to stderr).
 */
export interface RemoteOptions {
  s3: unknown;
  cacheDir: { value: string } | string;
  env: Record<string, string | undefined>;
  onRequest?: (operation: string, key: string) => void;
}

/**
 * Picks a backend by the location's scheme: a plain path or file: URL is a directory, mem: is
 * in-memory (tests), s3:// is object storage (its SDK is loaded only then: capture stays fast).
 */
export async function openBackend(location: string, remote?: RemoteOptions | null): Promise<Backend> {
  if (!isS3Uri(location)) return backendFor(location);
  if (!remote) throw new AtticError('config', `Archive location '${redactUrl(location)}' needs S3 settings. This is a bug in the caller.`);
  const [{ openS3Backend }, { resolveS3Settings }] = await Promise.all([import('./backends/s3/open.js'), import('./backends/s3/settings.js')]);
  const trace = remote.env.DBTATTIC_S3_TRACE === '1' ? (operation: string, key: string) => process.stderr.write(`s3 ${operation} ${key}\n`) : undefined;
  return openS3Backend(location, {
    settings: resolveS3Settings(remote.s3, remote.env),
    cacheDir: typeof remote.cacheDir === 'string' ? remote.cacheDir : remote.cacheDir.value,
    onRequest: remote.onRequest ?? trace,
  });
}

/** A local (or in-memory) backend by its location. */
export function backendFor(location: string): Backend {
  if (location === 'mem:' || location.startsWith('mem:')) return new MemBackend();
  if (location.startsWith('file://')) return new FsBackend(new URL(location).pathname);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) {
    throw new AtticError(
      'config',
      `Archive location '${redactUrl(location)}' uses a scheme dbtattic does not support. Use a local directory or s3://bucket/prefix.`,
    );
  }
  return new FsBackend(path.resolve(location));
}

/**
 * Opens an archive, writing its FORMAT file on first use; refuses one of an unknown format. A
 * missing FORMAT beside existing objects is damage, not a new archive: writing a FORMAT over an
 * archive whose format is unknown could misfile everything in it.
 */
export async function openArchive(location: string, options: { create: boolean; remote?: RemoteOptions | null }): Promise<Backend> {
  return openArchiveOn(await openBackend(location, options.remote), options.create);
}

/** openArchive on a backend already reached. */
export async function openArchiveOn(backend: Backend, create: boolean): Promise<Backend> {
  let format = await backend.get(FORMAT_KEY);
  // A writer puts FORMAT before any object, so objects listed after a missing FORMAT mean damage
  // only if FORMAT is still missing now: another process may have created the archive meanwhile.
  if (format === undefined && (await holdsObjects(backend))) {
    format = await backend.get(FORMAT_KEY);
    if (format === undefined) throw formatMissing(backend);
  }
  if (format === undefined) {
    if (!create) {
      throw new AtticError('not-found', `No archive at ${backend.location}. Run 'dbtattic capture' in a dbt project first.`);
    }
    // Another process may create it first: its FORMAT is the one to follow.
    await backend.putIfAbsent(FORMAT_KEY, Buffer.from(`${ARCHIVE_FORMAT}\n`));
    format = await backend.get(FORMAT_KEY);
  }
  const text = format?.toString('utf8').trim();
  const version = archiveFormatOf(text);
  if (version === undefined) {
    throw new AtticError(
      'archive-format',
      `The archive at ${backend.location} has format '${text ?? ''}', and this dbtattic reads ${Object.keys(ARCHIVE_FORMATS)
        .map((f) => `'${f}'`)
        .join(' and ')}. Upgrade dbtattic.`,
    );
  }
  recordArchiveFormat(backend, version);
  return backend;
}

/** Opens an archive for `verify`, which must be able to look at one whose FORMAT is missing. */
export async function openArchiveForCheck(location: string, remote?: RemoteOptions | null): Promise<Backend> {
  try {
    return await openArchive(location, { create: false, remote });
  } catch (error) {
    if (error instanceof AtticError && error.code === 'archive-damaged') return openBackend(location, remote);
    throw error;
  }
}

/** Anything under the keys an archive writes; only asked when FORMAT is missing, so its cost is rare. */
async function holdsObjects(backend: Backend): Promise<boolean> {
  for (const prefix of [REFS_PREFIX, CAPTURE_RECORDS_PREFIX, FILES_PREFIX, INVOCATION_RECORDS_PREFIX, CHUNKS_PREFIX]) {
    if ((await backend.list(prefix)).length > 0) return true;
  }
  return false;
}

function formatMissing(backend: Backend): AtticError {
  return new AtticError(
    'archive-damaged',
    `The archive at ${backend.location} holds objects but its FORMAT file is missing. Nothing was written. Run 'dbtattic verify --repair' to check the archive and restore FORMAT.`,
  );
}

/** A URL with any user or password removed, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
}
