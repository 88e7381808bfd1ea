import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { AtticError } from '../errors.js';
import { ATTIC_CONFIG_FILE } from './dbt-project.js';
import type { Resolved, Source } from './resolved.js';

/**
 * A store in object storage (`s3://bucket/prefix`). The archive is there; everything derived
 * from it (the DuckDB store, the stat cache, probed capabilities, state directories) lives in a
 * local cache directory, one per store URI, so two stores never share one.
 */
export interface RemoteStore {
  uri: string;
  /** The raw `s3:` mapping of dbtattic.yml; the archive layer parses it (settings.ts). */
  s3: unknown;
  cacheDir: Resolved<string>;
  env: Record<string, string | undefined>;
}

export function isRemoteUri(value: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) && !/^file:\/\//i.test(value);
}

export function resolveRemote(
  uri: string,
  attic: Record<string, unknown>,
  env: Record<string, string | undefined>,
  cwd: string,
  projectDir: string | null,
): RemoteStore {
  if (!/^s3:\/\//i.test(uri))
    throw new AtticError(
      'config',
      `Store '${uri.replace(/\/\/[^/@]*@/, '//***@')}' uses a scheme dbtattic does not support. Use a directory or s3://bucket/prefix.`,
    );
  // `s3://` alone (an unset $BUCKET in a script) lost its slashes below and became a directory named s3:.
  if (!/^s3:\/\/[^/]+/i.test(uri)) throw new AtticError('config', `Store '${uri}' names no bucket. Use s3://bucket/prefix.`);
  return { uri: uri.replace(/\/+$/, ''), s3: attic.s3, cacheDir: resolveCacheDir(uri, attic, env, cwd, projectDir), env };
}

function resolveCacheDir(
  uri: string,
  attic: Record<string, unknown>,
  env: Record<string, string | undefined>,
  cwd: string,
  projectDir: string | null,
): Resolved<string> {
  if (env.DBTATTIC_CACHE) return { value: path.resolve(cwd, env.DBTATTIC_CACHE), source: 'env:DBTATTIC_CACHE' };
  if (typeof attic.cache === 'string' && attic.cache) return { value: path.resolve(projectDir ?? cwd, attic.cache), source: ATTIC_CONFIG_FILE as Source };
  return { value: path.join(userCacheDir(env), 'dbtattic', cacheName(uri, env)), source: 'default' };
}

/** XDG on Linux, ~/Library/Caches on macOS, %LOCALAPPDATA% on Windows. */
function userCacheDir(env: Record<string, string | undefined>): string {
  if (env.XDG_CACHE_HOME) return env.XDG_CACHE_HOME;
  const home = env.HOME ?? os.homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Caches');
  if (process.platform === 'win32') return env.LOCALAPPDATA ?? path.join(home, 'AppData', 'Local');
  return path.join(home, '.cache');
}

/** Readable and unique: the bucket and prefix, plus a hash of the URI and endpoint. */
function cacheName(uri: string, env: Record<string, string | undefined>): string {
  const readable = uri
    .replace(/^s3:\/\//i, '')
    .replace(/[^a-zA-Z0-9.-]+/g, '_')
    .slice(0, 60);
  const hash = createHash('sha256')
    .update(`${uri}\n${env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL ?? ''}`)
    .digest('hex')
    .slice(0, 10);
  return `${readable}-${hash}`;
}
