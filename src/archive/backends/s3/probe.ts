import { randomBytes } from 'node:crypto';
import { DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { TEMP_PREFIX } from '../fs.js';
import { bareEtag, type S3Capabilities } from './backend.js';
import { remoteError, statusOf } from './failure.js';
import type { S3Location } from './location.js';
import type { S3Settings } from './settings.js';

export interface ProbedCapabilities extends S3Capabilities {
  probedAt: string;
}

/**
 * Learns what the server does with conditional writes, on a throwaway key under the store's
 * prefix (a temp name every reader ignores). Servers differ: AWS and Ceph 16+ honour
 * If-None-Match and If-Match; Ceph only with a bare ETag; older servers ignore both.
 * Five requests, once per store and machine (the result is cached, see capabilities-cache.ts).
 */
export async function probeCapabilities(client: S3Client, where: S3Location, settings: S3Settings, now: Date): Promise<ProbedCapabilities> {
  const key = `${where.prefix}${TEMP_PREFIX}probe-${randomBytes(8).toString('hex')}`;
  const put = async (body: string, condition: Record<string, string>): Promise<{ etag: string } | { status: number }> => {
    try {
      const out = await client.send(new PutObjectCommand({ Bucket: where.bucket, Key: key, Body: body, ContentLength: body.length, ...condition }));
      return { etag: bareEtag(out.ETag ?? '') };
    } catch (error) {
      const status = statusOf(error);
      // Only a condition's answer is an answer: a plain PUT refused (404: no such bucket) is the store's failure.
      const conditional = Object.keys(condition).length > 0;
      if (conditional && (status === 412 || status === 409 || status === 404)) return { status };
      throw remoteError(error, where, settings.endpoint, 'probe (PUT)');
    }
  };
  try {
    const first = await put('a', {});
    if (!('etag' in first)) throw new Error('unreachable');
    const second = await put('b', { IfNoneMatch: '*' });
    const createOnly = !('etag' in second);
    const cas = await probeIfMatch(put, 'etag' in second ? second.etag : first.etag, settings);
    return { createOnly, ...cas, probedAt: now.toISOString() };
  } finally {
    await client.send(new DeleteObjectCommand({ Bucket: where.bucket, Key: key })).catch(() => undefined);
  }
}

type Put = (body: string, condition: Record<string, string>) => Promise<{ etag: string } | { status: number }>;

async function probeIfMatch(put: Put, etag: string, settings: S3Settings): Promise<{ compareAndSwap: boolean; quoteEtag: boolean }> {
  // A server that accepts a wrong ETag ignores If-Match altogether.
  const wrong = await put('c', { IfMatch: '0123456789abcdef0123456789abcdef' });
  if ('etag' in wrong) return { compareAndSwap: false, quoteEtag: false };
  const order = settings.quoteEtag === null ? [false, true] : [settings.quoteEtag];
  for (const quoted of order) {
    const swapped = await put('d', { IfMatch: quoted ? `"${etag}"` : etag });
    if ('etag' in swapped) return { compareAndSwap: true, quoteEtag: quoted };
  }
  return { compareAndSwap: false, quoteEtag: false };
}
