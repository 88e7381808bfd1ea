import { promises as fs } from 'node:fs';
import path from 'node:path';
import { S3Backend, type RequestListener } from './backend.js';
import { makeS3Client } from './client.js';
import { formatS3Uri, parseS3Uri, type S3Location } from './location.js';
import { probeCapabilities, type ProbedCapabilities } from './probe.js';
import type { S3Settings } from './settings.js';

export interface S3OpenOptions {
  settings: S3Settings;
  /** A local directory for this store's cached facts (the probed capabilities). */
  cacheDir: string;
  onRequest?: RequestListener;
  now?: Date;
}

const CAPABILITIES_FILE = 'capabilities.json';
/** Servers get upgraded: probe again now and then. */
const PROBE_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** Opens an s3:// archive, probing the server's conditional writes once per day and machine. */
export async function openS3Backend(uri: string, options: S3OpenOptions): Promise<S3Backend> {
  const where = parseS3Uri(uri);
  const client = makeS3Client(options.settings);
  const conditionalClient = makeS3Client({ ...options.settings, maxAttempts: 1 });
  const now = options.now ?? new Date();
  const probed = (await readCachedCapabilities(options.cacheDir, where, options.settings.endpoint, now)) ?? (await probeAndCache(client, where, options, now));
  const capabilities = { ...probed, compareAndSwap: probed.compareAndSwap && options.settings.compareAndSwap !== 'off' };
  return new S3Backend(client, conditionalClient, where, options.settings, capabilities, options.onRequest);
}

async function probeAndCache(client: ReturnType<typeof makeS3Client>, where: S3Location, options: S3OpenOptions, now: Date): Promise<ProbedCapabilities> {
  options.onRequest?.('PROBE', '');
  const probed = await probeCapabilities(client, where, options.settings, now);
  const temp = path.join(options.cacheDir, `${CAPABILITIES_FILE}.${process.pid}.tmp`);
  // Only a cache: a full or read-only disk costs a probe next time, never the command.
  try {
    await fs.mkdir(options.cacheDir, { recursive: true });
    await fs.writeFile(temp, `${JSON.stringify({ store: formatS3Uri(where), endpoint: options.settings.endpoint, ...probed }, null, 2)}\n`);
    await fs.rename(temp, path.join(options.cacheDir, CAPABILITIES_FILE));
  } catch {
    await fs.rm(temp, { force: true }).catch(() => undefined);
  }
  return probed;
}

export async function readCachedCapabilities(cacheDir: string, where: S3Location, endpoint: string | null, now: Date): Promise<ProbedCapabilities | undefined> {
  try {
    const cached = JSON.parse(await fs.readFile(path.join(cacheDir, CAPABILITIES_FILE), 'utf8')) as ProbedCapabilities & { store?: string };
    if (cached.store !== formatS3Uri(where) || (cached as { endpoint?: string | null }).endpoint !== endpoint || typeof cached.compareAndSwap !== 'boolean')
      return undefined;
    if (now.getTime() - Date.parse(cached.probedAt) > PROBE_MAX_AGE_MS) return undefined;
    return { createOnly: cached.createOnly, compareAndSwap: cached.compareAndSwap, quoteEtag: cached.quoteEtag, probedAt: cached.probedAt };
  } catch {
    return undefined;
  }
}
