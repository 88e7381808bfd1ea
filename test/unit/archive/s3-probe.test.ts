import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterEach, describe, expect, it } from 'vitest';
import { openS3Backend, readCachedCapabilities } from '../../../src/archive/backends/s3/open.js';
import { probeCapabilities } from '../../../src/archive/backends/s3/probe.js';
import { resolveS3Settings } from '../../../src/archive/backends/s3/settings.js';

/**
 * What the probe learns of a server's conditional writes (docs/remote-stores.md), against stand-ins that
 * behave as the servers measured in ../shared/notes/s3-facts.md do: AWS honours If-None-Match and
 * If-Match with the ETag quoted or bare, Ceph 16 If-Match only bare, an old server neither. And
 * the cache of what was probed: trusted for its own store and endpoint, for a day.
 */
type Server = { createOnly: boolean; ifMatch: 'quoted-or-bare' | 'bare' | 'quoted' | 'ignored' | 'refused'; conflict?: number };

function standIn(server: Server) {
  const objects = new Map<string, string>();
  const deleted: string[] = [];
  const refuse = (status: number): never => {
    throw Object.assign(new Error(`HTTP ${status}`), { name: 'PreconditionFailed', $metadata: { httpStatusCode: status } });
  };
  let version = 0;
  const client = {
    send: async (command: unknown) => {
      if (command instanceof DeleteObjectCommand) {
        deleted.push(command.input.Key!);
        objects.delete(command.input.Key!);
        return {};
      }
      if (!(command instanceof PutObjectCommand)) throw new Error('the probe sends only PUT and DELETE');
      const { Key, IfNoneMatch, IfMatch } = command.input;
      const current = objects.get(Key!);
      if (IfNoneMatch === '*' && server.createOnly && current !== undefined) refuse(server.conflict ?? 412);
      if (IfMatch !== undefined) {
        if (server.ifMatch === 'refused') refuse(404);
        if (server.ifMatch !== 'ignored') {
          const bare = IfMatch.replace(/^"|"$/g, '');
          const quotedOk = server.ifMatch === 'quoted-or-bare' || (server.ifMatch === 'quoted') === (IfMatch !== bare);
          if (bare !== current || !quotedOk) refuse(412);
        }
      }
      const etag = `etag${++version}`.padEnd(32, '0');
      objects.set(Key!, etag);
      return { ETag: `"${etag}"` };
    },
  } as unknown as S3Client;
  return { client, deleted };
}

const where = { bucket: 'team-bucket', prefix: 'team/' };
const now = new Date('2026-03-01T12:00:00.000Z');
const settings = (quoteEtag: boolean | null = null) => ({ ...resolveS3Settings(undefined, {}), quoteEtag });

describe('the probe of an S3 server', () => {
  it.each([
    ['AWS', { createOnly: true, ifMatch: 'quoted-or-bare' }, null, { createOnly: true, compareAndSwap: true, quoteEtag: false }],
    ['AWS, told to quote', { createOnly: true, ifMatch: 'quoted-or-bare' }, true, { createOnly: true, compareAndSwap: true, quoteEtag: true }],
    ['Ceph 16', { createOnly: true, ifMatch: 'bare' }, null, { createOnly: true, compareAndSwap: true, quoteEtag: false }],
    ['Ceph 16, told to quote', { createOnly: true, ifMatch: 'bare' }, true, { createOnly: true, compareAndSwap: false, quoteEtag: false }],
    ['a server that ignores conditions', { createOnly: false, ifMatch: 'ignored' }, null, { createOnly: false, compareAndSwap: false, quoteEtag: false }],
    ['a server that refuses If-Match', { createOnly: true, ifMatch: 'refused' }, null, { createOnly: true, compareAndSwap: false, quoteEtag: false }],
    ['a server that wants the ETag quoted', { createOnly: true, ifMatch: 'quoted' }, null, { createOnly: true, compareAndSwap: true, quoteEtag: true }],
    [
      'a server that refuses a second create with 409',
      { createOnly: true, ifMatch: 'bare', conflict: 409 },
      null,
      { createOnly: true, compareAndSwap: true, quoteEtag: false },
    ],
    ['a server with If-Match but no create-only', { createOnly: false, ifMatch: 'bare' }, null, { createOnly: false, compareAndSwap: true, quoteEtag: false }],
  ] as [string, Server, boolean | null, object][])('finds what %s does', async (_, server, quoteEtag, found) => {
    const { client, deleted } = standIn(server);
    expect(await probeCapabilities(client, where, settings(quoteEtag), now)).toEqual({ ...found, probedAt: now.toISOString() });
    // On one throwaway key under the store's prefix, named as a temp file every reader skips, removed after.
    expect(deleted).toHaveLength(1);
    expect(deleted[0]).toMatch(/^team\/\.tmp-probe-[0-9a-f]{16}$/);
  });

  it('fails as the server did on any other answer, and still removes its key', async () => {
    const deleted: string[] = [];
    const client = {
      send: async (command: unknown) => {
        if (command instanceof DeleteObjectCommand) return void deleted.push(command.input.Key!);
        throw Object.assign(new Error('slow down'), { name: 'InternalError', $metadata: { httpStatusCode: 500 } });
      },
    } as unknown as S3Client;
    await expect(probeCapabilities(client, where, settings(), now)).rejects.toMatchObject({
      code: 'remote',
      message: expect.stringContaining('failed probe (PUT) on s3://team-bucket/team: InternalError (HTTP 500)'),
    });
    expect(deleted).toHaveLength(1);
  });
});

describe('the cache of what was probed', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const cacheWith = (content: object | string): string => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-s3-cache-'));
    dirs.push(dir);
    writeFileSync(path.join(dir, 'capabilities.json'), typeof content === 'string' ? content : JSON.stringify(content));
    return dir;
  };
  const probed = {
    store: 's3://team-bucket/team',
    endpoint: 'https://s3.example',
    createOnly: true,
    compareAndSwap: true,
    quoteEtag: false,
    probedAt: now.toISOString(),
  };

  it('is trusted for its store and endpoint for a day', async () => {
    const dir = cacheWith(probed);
    const { store: _, endpoint: __, ...capabilities } = probed;
    expect(await readCachedCapabilities(dir, where, 'https://s3.example', now)).toEqual(capabilities);
    expect(await readCachedCapabilities(dir, where, 'https://s3.example', new Date(now.getTime() + 24 * 3600_000))).toEqual(capabilities);
    expect(await readCachedCapabilities(dir, where, 'https://s3.example', new Date(now.getTime() + 24 * 3600_000 + 1))).toBeUndefined();
  });

  it('is not trusted for another store or endpoint, nor when it is not a cache of ours', async () => {
    expect(await readCachedCapabilities(cacheWith(probed), { bucket: 'team-bucket', prefix: 'other/' }, 'https://s3.example', now)).toBeUndefined();
    expect(await readCachedCapabilities(cacheWith(probed), where, null, now)).toBeUndefined();
    expect(await readCachedCapabilities(cacheWith({ ...probed, compareAndSwap: 'yes' }), where, 'https://s3.example', now)).toBeUndefined();
    expect(await readCachedCapabilities(cacheWith('{ half'), where, 'https://s3.example', now)).toBeUndefined();
    expect(await readCachedCapabilities(path.join(os.tmpdir(), 'no-such-cache-dir'), where, 'https://s3.example', now)).toBeUndefined();
  });

  it('opens a store without a request, and compare-and-swap turned off stays off', async () => {
    const requests: string[] = [];
    const options = (compare_and_swap?: boolean) => ({
      settings: resolveS3Settings({ endpoint: 'https://s3.example', ...(compare_and_swap === undefined ? {} : { compare_and_swap }) }, {}),
      cacheDir: cacheWith(probed),
      onRequest: (operation: string) => requests.push(operation),
      now,
    });
    expect((await openS3Backend('s3://team-bucket/team', options())).capabilities).toMatchObject({ createOnly: true, compareAndSwap: true });
    expect((await openS3Backend('s3://team-bucket/team', options(false))).capabilities).toMatchObject({ createOnly: true, compareAndSwap: false });
    expect(requests).toEqual([]);
  });
});
