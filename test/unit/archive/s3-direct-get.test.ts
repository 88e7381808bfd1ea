import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { makeS3Client } from '../../../src/archive/backends/s3/client.js';
import { DirectGet, recordTemplate, templateFrom, type GetTemplate } from '../../../src/archive/backends/s3/direct-get.js';
import { resolveS3Settings } from '../../../src/archive/backends/s3/settings.js';
import { announceS3Skip, makeBucket, s3Available } from '../../helpers/s3.js';

const signed = (authorization: string, path: string, hostname = '127.0.0.1'): Parameters<typeof templateFrom>[0] => ({
  protocol: 'http:',
  hostname,
  port: 7480,
  path,
  query: { 'x-id': 'GetObject' },
  headers: { authorization },
});
const SIGV4 = 'AWS4-HMAC-SHA256 Credential=AKID/20261201/eu-west-3/s3/aws4_request, SignedHeaders=host, Signature=00';

describe('the GET template learnt from a request the SDK signed', () => {
  it('keeps the path before the key (path-style), the query, and the signing region and service', () => {
    expect(templateFrom(signed(SIGV4, '/bucket/team/archive/chunks/ab/cd'), 'team/archive/chunks/ab/cd')).toEqual({
      protocol: 'http:',
      hostname: '127.0.0.1',
      port: 7480,
      basePath: '/bucket/',
      query: { 'x-id': 'GetObject' },
      region: 'eu-west-3',
      service: 's3',
    });
  });

  it('takes a virtual-hosted request, whose path is the key alone', () => {
    expect(templateFrom(signed(SIGV4, '/archive/FORMAT', 'bucket.s3.eu-west-3.amazonaws.com'), 'archive/FORMAT')?.basePath).toBe('/');
  });

  it('matches the key as the SDK encodes it', () => {
    expect(templateFrom(signed(SIGV4, '/bucket/a%20b/it%27s/x', 'h'), "a b/it's/x")?.basePath).toBe('/bucket/');
    // RFC 3986 percent-encoding, upper-case hex, as the SDK writes `!'()*`.
    expect(templateFrom(signed(SIGV4, '/bucket/a%281%29%2A%21.json', 'h'), 'a(1)*!.json')?.basePath).toBe('/bucket/');
  });

  it('refuses what it cannot repeat: another signature scheme, or a path that does not end with the key', () => {
    expect(templateFrom(signed(SIGV4.replace('AWS4-HMAC-SHA256', 'AWS4-ECDSA-P256-SHA256'), '/bucket/k'), 'k')).toBeNull();
    expect(templateFrom(signed('', '/bucket/k'), 'k')).toBeNull();
    expect(templateFrom(signed(SIGV4, '/bucket/other'), 'k')).toBeNull();
  });
});

/** A local HTTP server answering every GET with `answer`; the DirectGet signs with made-up keys. */
async function directTo(answer: http.RequestListener, timeoutMs = 5_000) {
  const server = http.createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const client = new S3Client({ region: 'eu-west-3', credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret' } });
  const template: GetTemplate = {
    protocol: 'http:',
    hostname: '127.0.0.1',
    port,
    basePath: '/bucket/',
    query: { 'x-id': 'GetObject' },
    region: 'eu-west-3',
    service: 's3',
  };
  return {
    direct: new DirectGet(client, template, timeoutMs, 2),
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('a GET without the SDK stack', () => {
  it('returns the body of a 200, signed for the key under the base path', async () => {
    let seen: http.IncomingMessage | undefined;
    const { direct, close } = await directTo((req, res) => {
      seen = req;
      res.end('{"a":1}');
    });
    expect((await direct.get('team/records/a(1).json'))?.bytes.toString()).toBe('{"a":1}');
    expect(seen?.method).toBe('GET');
    expect(seen?.url).toBe('/bucket/team/records/a%281%29.json?x-id=GetObject');
    expect(seen?.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKID\/\d{8}\/eu-west-3\/s3\/aws4_request,/);
    await close();
  });

  it('leaves to the SDK (answers undefined) a refusal, a body cut short, no answer in time, or no server', async () => {
    const refused = await directTo((_, res) => res.writeHead(403).end('<Error/>'));
    expect(await refused.direct.get('k')).toBeUndefined();
    await refused.close();
    const cut = await directTo((_, res) => {
      res.writeHead(200, { 'content-length': '10' });
      res.write('abcde', () => res.destroy());
    });
    expect(await cut.direct.get('k')).toBeUndefined();
    await cut.close();
    const silent = await directTo(() => undefined, 200);
    expect(await silent.direct.get('k')).toBeUndefined();
    await silent.close();
    const gone = await directTo(() => undefined);
    await gone.close();
    expect(await gone.direct.get('k')).toBeUndefined();
  });
});

announceS3Skip('GETs without the SDK stack against a real S3 server (test/unit/archive/s3-direct-get.test.ts)');

describe.runIf(s3Available)('GETs without the SDK stack, on a real S3 server', () => {
  it('return the bytes the SDK stored, and leave a missing key or refused credentials to the SDK', async () => {
    const bucket = await makeBucket();
    const client = makeS3Client(resolveS3Settings(undefined, process.env));
    const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256));
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: 'p/x/one', Body: bytes }));
    let template: GetTemplate | null | undefined;
    const first = new GetObjectCommand({ Bucket: bucket, Key: 'p/x/one' });
    recordTemplate(first, 'p/x/one', (t) => (template = t));
    await client.send(first);
    expect(template?.basePath).toBe(`/${bucket}/`);
    const direct = new DirectGet(client, template!, 10_000, 4);
    const got = await direct.get('p/x/one');
    expect(got?.bytes.equals(bytes)).toBe(true);
    expect(await direct.get('p/x/missing')).toBeUndefined();
    const wrongKeys = new S3Client({ credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID!, secretAccessKey: 'not-the-secret' } });
    expect(await new DirectGet(wrongKeys, template!, 10_000, 4).get('p/x/one')).toBeUndefined();
    client.destroy();
    wrongKeys.destroy();
  });
});
