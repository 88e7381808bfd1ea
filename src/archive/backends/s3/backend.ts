import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type PutObjectCommandInput,
  type S3Client,
} from '@aws-sdk/client-s3';
import { sameBytes, type Backend, type BackendCapabilities, type StoredKey } from '../../backend.js';
import { TEMP_PREFIX } from '../fs.js';
import { writeConditionally, type ConditionalOutcome } from './conditional.js';
import { DirectGet, recordTemplate } from './direct-get.js';
import { isMissing, remoteError } from './failure.js';
import { formatS3Uri, type S3Location } from './location.js';
import { MULTIPART_THRESHOLD, putMultipart } from './multipart.js';
import type { S3Settings } from './settings.js';

export interface S3Capabilities extends BackendCapabilities {
  /** Whether If-Match wants the ETag in quotes (AWS accepts both; Ceph only bare). */
  quoteEtag: boolean;
}

/** Called for every request sent, for DBTATTIC_S3_TRACE and the benchmarks' request counts. */
export type RequestListener = (operation: string, key: string) => void;

/**
 * A backend on S3-compatible object storage. Create-only writes use If-None-Match: *, compare-
 * and-swap uses If-Match on the ETag read just before (a missing key answers 412 on Ceph, 404
 * on AWS: both are a lost swap). Keys are the archive's keys under the store's prefix.
 */
export class S3Backend implements Backend {
  constructor(
    private readonly client: S3Client,
    /** The same, without SDK retries: conditional writes retry themselves (conditional.ts). */
    private readonly conditionalClient: S3Client,
    readonly where: S3Location,
    private readonly settings: S3Settings,
    readonly capabilities: S3Capabilities,
    private readonly onRequest?: RequestListener,
  ) {}

  get location(): string {
    return formatS3Uri(this.where);
  }

  private objectKey(key: string): string {
    return this.where.prefix + key;
  }

  /** Sends one command, turning any failure the caller does not handle into a clear error. */
  private async send<T extends object>(
    operation: string,
    key: string,
    call: (client: S3Client) => Promise<T>,
    expected: (error: unknown) => boolean = () => false,
  ): Promise<T | { failed: unknown }> {
    this.onRequest?.(operation, key);
    try {
      return await call(this.client);
    } catch (error) {
      if (expected(error)) return { failed: error };
      throw remoteError(error, this.where, this.settings.endpoint, `${operation} ${key}`);
    }
  }

  /** GETs without the SDK's stack (direct-get.ts): learnt from the first GET; null when impossible. */
  private direct: DirectGet | null | undefined;

  async get(key: string): Promise<Buffer | undefined> {
    if (this.direct) {
      this.onRequest?.('GET', key);
      const got = await this.direct.get(this.objectKey(key));
      if (got) return got.bytes;
    }
    return (await this.getWithEtag(key))?.bytes;
  }

  private async getWithEtag(key: string): Promise<{ bytes: Buffer; etag: string } | undefined> {
    const command = new GetObjectCommand({ Bucket: this.where.bucket, Key: this.objectKey(key) });
    if (this.direct === undefined) {
      recordTemplate(command, this.objectKey(key), (template) => {
        this.direct ??= template && new DirectGet(this.client, template, this.settings.timeoutMs, this.settings.parallel);
      });
    }
    const out = await this.send('GET', key, (c) => c.send(command), isMissing);
    if ('failed' in out) return undefined;
    const array = (await out.Body?.transformToByteArray()) ?? new Uint8Array();
    return { bytes: Buffer.from(array.buffer, array.byteOffset, array.byteLength), etag: bareEtag(out.ETag ?? '') };
  }

  async has(key: string): Promise<boolean> {
    const out = await this.send('HEAD', key, (c) => c.send(new HeadObjectCommand({ Bucket: this.where.bucket, Key: this.objectKey(key) })), isMissing);
    return !('failed' in out);
  }

  async putIfAbsent(key: string, data: Uint8Array): Promise<boolean> {
    if (data.length > MULTIPART_THRESHOLD || !this.capabilities.createOnly) {
      // Not atomic: a concurrent writer may write the same key in between. Only keys that name
      // their content (or their writer) come here, so the value written is the same either way.
      if (await this.has(key)) return false;
      if (data.length > MULTIPART_THRESHOLD) {
        this.onRequest?.('MULTIPART', key);
        await putMultipart(this.client, this.where.bucket, this.objectKey(key), data, this.encryption()).catch((error: unknown) => {
          throw remoteError(error, this.where, this.settings.endpoint, `multipart upload ${key}`);
        });
        return true;
      }
      await this.put(key, data);
      return true;
    }
    return (await this.putConditionally(key, data, { IfNoneMatch: '*' })) === 'written';
  }

  private putConditionally(key: string, data: Uint8Array, condition: Partial<PutObjectCommandInput>): Promise<ConditionalOutcome> {
    const command = new PutObjectCommand(this.putInput(key, data, condition));
    return writeConditionally({
      maxAttempts: this.settings.maxAttempts,
      send: async () => {
        this.onRequest?.('PUT', key);
        await this.conditionalClient.send(command);
      },
      // Records hold their capture id and refs their head: equal bytes mean this writer's.
      landed: async () => sameBytes(await this.get(key), data),
    }).catch((error: unknown) => {
      throw remoteError(error, this.where, this.settings.endpoint, `PUT ${key}`);
    });
  }

  private putInput(key: string, data: Uint8Array, condition: Partial<PutObjectCommandInput>): PutObjectCommandInput {
    return { Bucket: this.where.bucket, Key: this.objectKey(key), Body: data, ContentLength: data.length, ...condition, ...this.encryption() };
  }

  private async put(key: string, data: Uint8Array): Promise<void> {
    await this.send('PUT', key, (c) => c.send(new PutObjectCommand(this.putInput(key, data, {}))));
  }

  private encryption(): Record<string, string> {
    if (!this.settings.sse) return {};
    return { ServerSideEncryption: this.settings.sse, ...(this.settings.kmsKeyId ? { SSEKMSKeyId: this.settings.kmsKeyId } : {}) };
  }

  async list(prefix: string, startAfter?: string): Promise<StoredKey[]> {
    const keys: StoredKey[] = [];
    let token: string | undefined;
    do {
      const input = {
        Bucket: this.where.bucket,
        Prefix: this.objectKey(prefix),
        ContinuationToken: token,
        ...(startAfter && !token ? { StartAfter: this.objectKey(startAfter) } : {}),
      };
      const out = await this.send('LIST', prefix, (c) => c.send(new ListObjectsV2Command(input)));
      if ('failed' in out) break;
      for (const entry of out.Contents ?? []) {
        const key = entry.Key?.slice(this.where.prefix.length);
        if (key && !key.split('/').some((segment) => segment.startsWith(TEMP_PREFIX)))
          keys.push({ key, size: entry.Size ?? 0, ...(entry.LastModified ? { modifiedMs: entry.LastModified.getTime() } : {}) });
      }
      token = out.IsTruncated ? out.NextContinuationToken : undefined;
    } while (token);
    return keys;
  }

  async delete(key: string): Promise<void> {
    await this.send('DELETE', key, (c) => c.send(new DeleteObjectCommand({ Bucket: this.where.bucket, Key: this.objectKey(key) })));
  }

  async compareAndSwap(key: string, expected: Uint8Array | undefined, next: Uint8Array | undefined): Promise<boolean> {
    if (!this.capabilities.compareAndSwap)
      throw new Error(`compare-and-swap on ${this.location} is not available (probed or turned off); callers use the fallback`);
    if (expected === undefined) {
      if (next === undefined) return (await this.get(key)) === undefined;
      return this.putIfAbsent(key, next);
    }
    const current = await this.getWithEtag(key);
    if (!current || !sameBytes(current.bytes, expected)) return false;
    if (next === undefined) {
      // DeleteObject ignores If-Match on Ceph: checked just above, not atomically. No ref of
      // the archive is ever deleted; this serves the backend contract only.
      await this.delete(key);
      return true;
    }
    const etag = this.capabilities.quoteEtag ? `"${current.etag}"` : current.etag;
    return (await this.putConditionally(key, next, { IfMatch: etag })) === 'written';
  }
}

export function bareEtag(etag: string): string {
  return etag.replace(/^W\//, '').replace(/^"|"$/g, '');
}
