import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openS3Backend } from '../../../src/archive/backends/s3/open.js';
import { resolveS3Settings } from '../../../src/archive/backends/s3/settings.js';

/**
 * Opening an s3:// store on a server it has not probed (open.ts), against a local HTTP server
 * that answers as Ceph 16 does (../shared/notes/s3-facts.md: If-None-Match, If-Match only with
 * a bare ETag): the probe's answer is cached in the cache directory, a cache that cannot be
 * written costs only a probe next time, and conditional writes get no SDK retries.
 */
let server: http.Server;
let endpoint: string;
const objects = new Map<string, string>();
let putsOf = new Map<string, number>();
/** A key whose PUTs the server answers 500, as Ceph answers the loser of a write race. */
let raceLost = '';
const dirs: string[] = [];
const env = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };

beforeEach(async () => {
  objects.clear();
  putsOf = new Map();
  raceLost = '';
  let version = 0;
  server = http.createServer((req, res) => {
    const key = decodeURIComponent(new URL(req.url!, 'http://x').pathname);
    req.resume();
    req.on('end', () => {
      if (req.method === 'DELETE') {
        objects.delete(key);
        return res.writeHead(204).end();
      }
      if (req.method !== 'PUT') return res.writeHead(404).end('<Error><Code>NoSuchKey</Code></Error>');
      putsOf.set(key, (putsOf.get(key) ?? 0) + 1);
      if (key === raceLost) return res.writeHead(500).end('<Error><Code>InternalError</Code></Error>');
      const current = objects.get(key);
      const refuse = () => res.writeHead(412).end('<Error><Code>PreconditionFailed</Code></Error>');
      if (req.headers['if-none-match'] === '*' && current !== undefined) return refuse();
      const ifMatch = req.headers['if-match'];
      if (ifMatch !== undefined && ifMatch !== current) return refuse();
      const etag = `etag${++version}`.padEnd(32, '0');
      objects.set(key, etag);
      res.writeHead(200, { etag: `"${etag}"` }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env.AWS_ACCESS_KEY_ID = 'AKID';
  process.env.AWS_SECRET_ACCESS_KEY = 'secret';
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  for (const [name, value] of [
    ['AWS_ACCESS_KEY_ID', env.id],
    ['AWS_SECRET_ACCESS_KEY', env.secret],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

const now = new Date('2026-03-01T12:00:00.000Z');
function open(cacheDir: string, requests: string[] = []) {
  return openS3Backend('s3://team-bucket/team', {
    settings: resolveS3Settings({ endpoint, region: 'eu-west-3' }, {}),
    cacheDir,
    now,
    onRequest: (operation) => requests.push(operation),
  });
}
const tempDir = (): string => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-s3-open-'));
  dirs.push(dir);
  return dir;
};

describe('opening an s3:// store', () => {
  it('probes once, and keeps what it learnt in the cache directory, made if missing', async () => {
    const cacheDir = path.join(tempDir(), 'cache', 'team');
    const requests: string[] = [];
    expect((await open(cacheDir, requests)).capabilities).toEqual({ createOnly: true, compareAndSwap: true, quoteEtag: false, probedAt: now.toISOString() });
    expect(JSON.parse(readFileSync(path.join(cacheDir, 'capabilities.json'), 'utf8'))).toEqual({
      store: 's3://team-bucket/team',
      endpoint,
      createOnly: true,
      compareAndSwap: true,
      quoteEtag: false,
      probedAt: now.toISOString(),
    });
    expect(readdirSync(cacheDir)).toEqual(['capabilities.json']);
    expect((await open(cacheDir, requests)).capabilities).toMatchObject({ createOnly: true, compareAndSwap: true });
    expect(requests).toEqual(['PROBE']);
  });

  it('still opens when the cache cannot be written, and leaves no temp file behind', async () => {
    const blocked = path.join(tempDir(), 'cache');
    mkdirSync(path.join(blocked, 'capabilities.json'), { recursive: true });
    writeFileSync(path.join(blocked, 'capabilities.json', 'keep'), '');
    expect((await open(blocked)).capabilities).toMatchObject({ createOnly: true, compareAndSwap: true });
    expect(readdirSync(blocked)).toEqual(['capabilities.json']);
    const file = path.join(tempDir(), 'a-file');
    writeFileSync(file, '');
    expect((await open(file)).capabilities).toMatchObject({ createOnly: true });
    expect(existsSync(`${file}.tmp`)).toBe(false);
  });

  it('sends a conditional write once: a 500 is a lost race, not an answer to retry', async () => {
    const backend = await open(tempDir());
    raceLost = '/team-bucket/team/refs/main';
    expect(await backend.putIfAbsent('refs/main', Buffer.from('head'))).toBe(false);
    expect(putsOf.get(raceLost)).toBe(1);
  });
});
