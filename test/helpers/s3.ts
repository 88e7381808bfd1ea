import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import type { Backend } from '../../src/archive/backend.js';
import { openS3Backend } from '../../src/archive/backends/s3/open.js';
import { resolveS3Settings } from '../../src/archive/backends/s3/settings.js';

/**
 * The S3 server the tests use: a real one (Ceph RGW from ../shared/s3/rgw-up.sh, started by
 * .ci/run), found through the standard AWS variables. Without one, S3 tests are skipped and
 * say so by name; with DBTATTIC_REQUIRE_S3=1 (CI) its absence is a failure.
 */
const VARIABLES = [
  'AWS_ENDPOINT_URL',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_REGION',
  'AWS_REQUEST_CHECKSUM_CALCULATION',
  'AWS_RESPONSE_CHECKSUM_VALIDATION',
];

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
export const s3Available = Boolean(process.env.AWS_ENDPOINT_URL && process.env.AWS_ACCESS_KEY_ID);

if (!s3Available && process.env.DBTATTIC_REQUIRE_S3 === '1') {
  throw new Error('DBTATTIC_REQUIRE_S3=1 but no S3 endpoint (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID): start ../shared/s3/rgw-up.sh and source its s3.env');
}

/** Call at the top of a file whose tests need S3: names what is skipped. */
export function announceS3Skip(what: string): void {
  if (!s3Available) console.warn(`SKIPPED (no S3 endpoint: set AWS_ENDPOINT_URL, or run .ci/run): ${what}`);
}

/** The AWS variables to hand to a CLI process. */
export function s3Env(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of VARIABLES) if (process.env[key]) env[key] = process.env[key]!;
  return env;
}

/** A new, empty bucket for one test file. */
export async function makeBucket(): Promise<string> {
  const bucket = `attic-test-${randomBytes(6).toString('hex')}`;
  const client = new S3Client({ endpoint: process.env.AWS_ENDPOINT_URL, forcePathStyle: true, region: process.env.AWS_REGION ?? 'us-east-1' });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  client.destroy();
  return bucket;
}

export async function openTestS3Backend(uri: string, env: Record<string, string | undefined> = process.env): Promise<Backend> {
  return openS3Backend(uri, { settings: resolveS3Settings(undefined, env), cacheDir: mkdtempSync(path.join(os.tmpdir(), 'attic-s3cache-')) });
}
