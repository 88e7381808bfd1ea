import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { makeS3Client } from '../../../src/archive/backends/s3/client.js';
import { S3Backend, type S3Capabilities } from '../../../src/archive/backends/s3/backend.js';
import { MULTIPART_THRESHOLD } from '../../../src/archive/backends/s3/multipart.js';
import { resolveS3Settings } from '../../../src/archive/backends/s3/settings.js';

/**
 * The S3 backend's choices that a real server in the contract suite does not exercise (it probes
 * as create-only, compare-and-swap, bare ETags, no encryption): a server without create-only,
 * server-side encryption, quoted ETags, compare-and-swap turned off, listing by pages and past
 * temp keys. Against a stand-in server in memory that records what it was sent.
 */
function standIn(pageSize = 1000) {
  const objects = new Map<string, { body: Buffer; etag: string }>();
  const sent: { command: string; input: Record<string, unknown> }[] = [];
  let version = 0;
  const missing = (): never => {
    throw Object.assign(new Error('NoSuchKey'), { name: 'NoSuchKey', $metadata: { httpStatusCode: 404 } });
  };
  const client = {
    send: async (command: { input: Record<string, unknown> }) => {
      const input = command.input;
      const key = input.Key as string;
      sent.push({ command: command.constructor.name, input });
      if (command instanceof PutObjectCommand) {
        const current = objects.get(key);
        if (input.IfNoneMatch === '*' && current) throw Object.assign(new Error('412'), { $metadata: { httpStatusCode: 412 } });
        if (input.IfMatch !== undefined && input.IfMatch !== `"${current?.etag}"` && input.IfMatch !== current?.etag)
          throw Object.assign(new Error('412'), { $metadata: { httpStatusCode: 412 } });
        const etag = `e${++version}`;
        objects.set(key, { body: Buffer.from(input.Body as Uint8Array), etag });
        return { ETag: `"${etag}"` };
      }
      if (command instanceof GetObjectCommand) {
        const found = objects.get(key) ?? missing();
        return { ETag: `"${found.etag}"`, Body: { transformToByteArray: async () => new Uint8Array(found.body) } };
      }
      if (command instanceof HeadObjectCommand) return objects.get(key) ? {} : missing();
      if (command instanceof DeleteObjectCommand) return void objects.delete(key);
      if (command instanceof ListObjectsV2Command) {
        const after = (input.ContinuationToken as string | undefined) ?? (input.StartAfter as string | undefined) ?? '';
        const keys = [...objects.keys()].filter((k) => k.startsWith(input.Prefix as string) && k > after).sort();
        const page = keys.slice(0, pageSize);
        const truncated = keys.length > pageSize;
        return {
          Contents: page.map((Key) => ({ Key, Size: objects.get(Key)!.body.length, LastModified: new Date(1_000) })),
          IsTruncated: truncated,
          NextContinuationToken: truncated ? page.at(-1) : undefined,
        };
      }
      throw new Error(`the stand-in does not serve ${command.constructor.name}`);
    },
  } as unknown as S3Client;
  return { client, sent, objects };
}

const where = { bucket: 'team-bucket', prefix: 'dbt/' };
const capable: S3Capabilities = { createOnly: true, compareAndSwap: true, quoteEtag: false };

function backendOn(server: ReturnType<typeof standIn>, capabilities: Partial<S3Capabilities> = {}, s3: Record<string, unknown> = {}, requests?: string[]) {
  return new S3Backend(
    server.client,
    server.client,
    where,
    resolveS3Settings(s3, {}),
    { ...capable, ...capabilities },
    requests ? (op, key) => requests.push(`${op} ${key}`) : undefined,
  );
}

describe('the S3 backend', () => {
  it('writes create-only with If-None-Match, and on a server without it looks first', async () => {
    const server = standIn();
    const backend = backendOn(server);
    expect(await backend.putIfAbsent('chunks/ab/cd', Buffer.from('one'))).toBe(true);
    expect(await backend.putIfAbsent('chunks/ab/cd', Buffer.from('two'))).toBe(false);
    expect(server.sent.filter((s) => s.command === 'PutObjectCommand').map((s) => s.input.IfNoneMatch)).toEqual(['*', '*']);
    const plain = standIn();
    const requests: string[] = [];
    const without = backendOn(plain, { createOnly: false }, {}, requests);
    expect(await without.putIfAbsent('chunks/ab/cd', Buffer.from('one'))).toBe(true);
    expect(await without.putIfAbsent('chunks/ab/cd', Buffer.from('two'))).toBe(false);
    expect(requests).toEqual(['HEAD chunks/ab/cd', 'PUT chunks/ab/cd', 'HEAD chunks/ab/cd']);
    expect(plain.sent.filter((s) => s.command === 'PutObjectCommand').map((s) => s.input.IfNoneMatch)).toEqual([undefined]);
    expect(plain.objects.get('dbt/chunks/ab/cd')?.body.toString()).toBe('one');
  });

  it.each([
    [{ sse: 'AES256' }, { ServerSideEncryption: 'AES256' }],
    [
      { sse: 'aws:kms', kms_key_id: 'alias/dbt' },
      { ServerSideEncryption: 'aws:kms', SSEKMSKeyId: 'alias/dbt' },
    ],
    [{ sse: 'aws:kms' }, { ServerSideEncryption: 'aws:kms' }],
  ])('asks for server-side encryption %j on every write', async (s3, headers) => {
    const server = standIn();
    const backend = backendOn(server, {}, s3);
    await backend.putIfAbsent('chunks/ab/cd', Buffer.from('x'));
    await backend.compareAndSwap('refs/branches/main', undefined, Buffer.from('h1'));
    await backendOn(server, { createOnly: false }, s3).putIfAbsent('chunks/ab/ef', Buffer.from('y'));
    const puts = server.sent.filter((s) => s.command === 'PutObjectCommand');
    expect(puts).toHaveLength(3);
    for (const put of puts) {
      expect(put.input).toMatchObject({ Bucket: 'team-bucket', ...headers });
      if (!('SSEKMSKeyId' in headers)) expect(put.input).not.toHaveProperty('SSEKMSKeyId');
    }
  });

  it('writes no encryption headers unless asked', async () => {
    const server = standIn();
    await backendOn(server).putIfAbsent('chunks/ab/cd', Buffer.from('x'));
    expect(server.sent[0]!.input).not.toHaveProperty('ServerSideEncryption');
  });

  it('swaps with the ETag read just before, quoted when the server wants it so', async () => {
    for (const quoteEtag of [false, true]) {
      const server = standIn();
      const backend = backendOn(server, { quoteEtag });
      expect(await backend.compareAndSwap('refs/branches/main', undefined, Buffer.from('h1'))).toBe(true);
      expect(await backend.compareAndSwap('refs/branches/main', Buffer.from('h1'), Buffer.from('h2'))).toBe(true);
      const ifMatch = server.sent.filter((s) => s.command === 'PutObjectCommand').map((s) => s.input.IfMatch);
      expect(ifMatch).toEqual([undefined, quoteEtag ? '"e1"' : 'e1']);
      expect(await backend.compareAndSwap('refs/branches/main', Buffer.from('h1'), Buffer.from('h3'))).toBe(false);
      expect(await backend.compareAndSwap('refs/branches/gone', Buffer.from('h1'), Buffer.from('h3'))).toBe(false);
      expect((await backend.get('refs/branches/main'))?.toString()).toBe('h2');
      // Absent to absent: nothing to do, and true only while absent.
      expect(await backend.compareAndSwap('refs/branches/gone', undefined, undefined)).toBe(true);
      expect(await backend.compareAndSwap('refs/branches/main', undefined, undefined)).toBe(false);
      expect(await backend.compareAndSwap('refs/branches/main', Buffer.from('h2'), undefined)).toBe(true);
      expect(await backend.has('refs/branches/main')).toBe(false);
    }
  });

  it('refuses compare-and-swap where it was probed absent or turned off, so callers take the fallback', async () => {
    const backend = backendOn(standIn(), { compareAndSwap: false });
    await expect(backend.compareAndSwap('refs/branches/main', undefined, Buffer.from('h1'))).rejects.toThrow(
      'compare-and-swap on s3://team-bucket/dbt is not available (probed or turned off); callers use the fallback',
    );
  });

  it('lists every page, under the prefix, after a key, leaving out temp keys', async () => {
    const server = standIn(1);
    const backend = backendOn(server);
    for (const key of ['records/a.json', 'records/b.json', 'records/c.json', 'records/.tmp-x', 'records/.tmp-dir/d.json', 'records/e.json', 'other/f.json']) {
      await backend.putIfAbsent(key, Buffer.from(key));
    }
    expect(await backend.list('records/')).toEqual(
      ['records/a.json', 'records/b.json', 'records/c.json', 'records/e.json'].map((key) => ({ key, size: key.length, modifiedMs: 1_000 })),
    );
    expect((await backend.list('records/', 'records/b.json')).map((k) => k.key)).toEqual(['records/c.json', 'records/e.json']);
    const lists = server.sent.filter((s) => s.command === 'ListObjectsV2Command').map((s) => s.input);
    // One page a key here: the first page starts after the key, the next follows the token alone.
    expect(lists.slice(-2)).toEqual([
      { Bucket: 'team-bucket', Prefix: 'dbt/records/', ContinuationToken: undefined, StartAfter: 'dbt/records/b.json' },
      { Bucket: 'team-bucket', Prefix: 'dbt/records/', ContinuationToken: 'dbt/records/c.json' },
    ]);
    expect(backend.location).toBe('s3://team-bucket/dbt');
  });

  it('reads a value whole, and a missing one as absent', async () => {
    const backend = backendOn(standIn());
    await backend.putIfAbsent('records/a.json', Buffer.from('{"a":1}'));
    expect((await backend.get('records/a.json'))?.toString()).toBe('{"a":1}');
    expect(await backend.get('records/none.json')).toBeUndefined();
    expect(await backend.has('records/none.json')).toBe(false);
    await backend.delete('records/a.json');
    expect(await backend.has('records/a.json')).toBe(false);
  });

  it('fails every request the server fails, naming the request and key: a failed LIST is no empty listing', async () => {
    const failing = {
      send: async () => {
        // Throttled: not an answer a conditional write takes for lost (a 500 is Ceph's race loser).
        throw Object.assign(new Error('try later'), { name: 'SlowDown', $metadata: { httpStatusCode: 503 } });
      },
    } as unknown as S3Client;
    const failed = (request: string) => ({
      code: 'remote',
      message: `AWS S3 failed ${request} on s3://team-bucket/dbt: SlowDown (HTTP 503): try later. Try again; if it persists, check the server.`,
    });
    for (const createOnly of [true, false]) {
      const backend = new S3Backend(failing, failing, where, resolveS3Settings({ max_attempts: 1 }, {}), { ...capable, createOnly });
      await expect(backend.list('records/')).rejects.toMatchObject(failed('LIST records/'));
      await expect(backend.get('records/a.json')).rejects.toMatchObject(failed('GET records/a.json'));
      await expect(backend.has('records/a.json')).rejects.toMatchObject(failed('HEAD records/a.json'));
      await expect(backend.delete('records/a.json')).rejects.toMatchObject(failed('DELETE records/a.json'));
      await expect(backend.putIfAbsent('records/a.json', Buffer.from('{}'))).rejects.toMatchObject(
        failed(createOnly ? 'PUT records/a.json' : 'HEAD records/a.json'),
      );
    }
  });
});

describe('the S3 backend reading through the SDK once', () => {
  it('learns the signed GET from the first read and sends the later ones without the SDK, falling back to it for a missing key', async () => {
    const seen: { url: string; sdk: boolean }[] = [];
    const server = http.createServer((req, res) => {
      seen.push({ url: req.url!, sdk: req.headers['x-amz-user-agent'] !== undefined || /aws-sdk/.test(req.headers['user-agent'] ?? '') });
      if (req.url!.startsWith('/team-bucket/dbt/records/a.json')) return res.writeHead(200, { etag: '"e1"', 'content-length': '7' }).end('{"a":1}');
      res.writeHead(404, { 'content-type': 'application/xml' }).end('<?xml version="1.0"?><Error><Code>NoSuchKey</Code><Message>none</Message></Error>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const settings = resolveS3Settings({ endpoint, region: 'eu-west-3', max_attempts: 1 }, {});
    const env = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = 'AKID';
    process.env.AWS_SECRET_ACCESS_KEY = 'secret';
    const client = makeS3Client(settings);
    const requests: string[] = [];
    try {
      const backend = new S3Backend(client, client, where, settings, capable, (op, key) => requests.push(`${op} ${key}`));
      for (let i = 0; i < 3; i++) expect((await backend.get('records/a.json'))?.toString()).toBe('{"a":1}');
      expect(await backend.get('records/none.json')).toBeUndefined();
      expect(seen.map((r) => r.sdk)).toEqual([true, false, false, false, true]);
      expect(seen[1]!.url).toBe('/team-bucket/dbt/records/a.json?x-id=GetObject');
      expect(requests).toEqual(['GET records/a.json', 'GET records/a.json', 'GET records/a.json', 'GET records/none.json', 'GET records/none.json']);
    } finally {
      client.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      for (const [name, value] of [
        ['AWS_ACCESS_KEY_ID', env.id],
        ['AWS_SECRET_ACCESS_KEY', env.secret],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});

describe('the S3 backend writing a large value or losing an answer', () => {
  /** The stand-in above, with multipart uploads (recorded, not stored) and a part that may fail. */
  function withMultipart(failPart = false) {
    const server = standIn();
    const plain = server.client.send.bind(server.client) as (command: unknown) => Promise<unknown>;
    const client = {
      send: async (command: { input: Record<string, unknown> }) => {
        if (command instanceof CreateMultipartUploadCommand) return server.sent.push({ command: 'Create', input: command.input }) && { UploadId: 'up-1' };
        if (command instanceof UploadPartCommand) {
          server.sent.push({ command: 'UploadPart', input: command.input });
          if (failPart) throw Object.assign(new Error('part lost'), { name: 'InternalError', $metadata: { httpStatusCode: 500 } });
          return { ETag: `"p${command.input.PartNumber}"` };
        }
        if (command instanceof CompleteMultipartUploadCommand || command instanceof AbortMultipartUploadCommand)
          return server.sent.push({ command: command.constructor.name, input: command.input }) && {};
        return plain(command);
      },
    } as unknown as S3Client;
    return { ...server, client };
  }

  it('sends a value over 16 MiB in parts, after looking first, and one of 16 MiB in one PUT', async () => {
    for (const createOnly of [true, false]) {
      const server = withMultipart();
      const requests: string[] = [];
      const backend = backendOn(server, { createOnly }, {}, requests);
      expect(await backend.putIfAbsent('blobs/big', new Uint8Array(MULTIPART_THRESHOLD + 1))).toBe(true);
      expect(await backend.putIfAbsent('blobs/edge', new Uint8Array(MULTIPART_THRESHOLD))).toBe(true);
      expect(requests).toEqual(['HEAD blobs/big', 'MULTIPART blobs/big', ...(createOnly ? [] : ['HEAD blobs/edge']), 'PUT blobs/edge']);
      expect(server.sent.map((s) => s.command).filter((c) => c !== 'HeadObjectCommand')).toEqual([
        'Create',
        'UploadPart',
        'UploadPart',
        'UploadPart',
        'CompleteMultipartUploadCommand',
        'PutObjectCommand',
      ]);
    }
  });

  it('fails a large write whose upload failed, naming it', async () => {
    const backend = backendOn(withMultipart(true));
    await expect(backend.putIfAbsent('blobs/big', new Uint8Array(MULTIPART_THRESHOLD + 1))).rejects.toMatchObject({
      code: 'remote',
      message:
        'AWS S3 failed multipart upload blobs/big on s3://team-bucket/dbt: InternalError (HTTP 500): part lost. Try again; if it persists, check the server.',
    });
  });

  it('takes a create-only write whose answer was lost as written when the value it reads back is its own', async () => {
    const server = standIn();
    const plain = server.client.send.bind(server.client) as (command: unknown) => Promise<unknown>;
    let lost = 1;
    const client = {
      send: async (command: unknown) => {
        const out = await plain(command);
        if (command instanceof PutObjectCommand && lost-- > 0) throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
        return out;
      },
    } as unknown as S3Client;
    const backend = backendOn({ ...server, client });
    expect(await backend.putIfAbsent('records/a.json', Buffer.from('{"a":1}'))).toBe(true);
    expect(await backend.putIfAbsent('records/a.json', Buffer.from('{"a":2}'))).toBe(false);
  });
});
