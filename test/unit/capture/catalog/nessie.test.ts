import { afterEach, describe, expect, it } from 'vitest';
import { parseCatalogConfig, readCatalogSnapshot, type CatalogConfig } from '../../../../src/capture/catalog/index.js';
import { startFakeServer, type FakeServer, type Handler } from './fake-server.js';

const HASH = '2e1cfa82b035c26cbbbdae632cea070514eb8b773f616aaeaf668e2f0be8f10d';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(handler: Handler): Promise<FakeServer> {
  server = await startFakeServer(handler);
  return server;
}

function nessie(uri: string, extra: Record<string, unknown> = {}): CatalogConfig {
  return parseCatalogConfig({ provider: 'nessie', uri, ...extra })!;
}

/** Answers GET /api/v2/trees/{ref} as Nessie's OpenAPI spec does (SingleReferenceResponse). */
const nessieTrees: Handler = (request) => {
  const match = /^\/api\/v2\/trees\/([^/?]+)$/.exec(request.url);
  if (!match) return { status: 404, body: { message: 'no such route', status: 404 } };
  const ref = decodeURIComponent(match[1]!);
  if (ref !== '-' && ref !== 'main' && ref !== 'etl')
    return { status: 404, body: { status: 404, reason: 'Not Found', message: `Named reference '${ref}' not found` } };
  return { body: { reference: { type: 'BRANCH', name: ref === '-' ? 'main' : ref, hash: HASH } } };
};

describe('nessie provider', () => {
  it('reads the hash of the default branch, naming it', async () => {
    const { url, seen } = await serve(nessieTrees);
    const snapshot = await readCatalogSnapshot(nessie(url), { env: {} });
    expect(snapshot).toEqual({ provider: 'nessie', status: 'ok', snapshotId: HASH, atomic: true, ref: 'main', uri: url });
    expect(seen.map((r) => r.url)).toEqual(['/api/v2/trees/-']);
  });

  it('accepts the client URI ending in /api/v2 and reads a named reference', async () => {
    const { url, seen } = await serve(nessieTrees);
    const snapshot = await readCatalogSnapshot(nessie(`${url}/api/v2/`, { ref: 'etl' }), { env: {} });
    expect(snapshot.snapshotId).toBe(HASH);
    expect(snapshot.ref).toBe('etl');
    expect(seen[0]!.url).toBe('/api/v2/trees/etl');
  });

  it('is unknown without the token when the server wants one, ok with it', async () => {
    const { url } = await serve((request) =>
      request.authorization === 'Bearer s3cr3t-nessie-token'
        ? nessieTrees(request)
        : { status: 401, body: { status: 401, reason: 'Unauthorized', message: 'Unauthorized' } },
    );
    const config = nessie(url, { token_env: 'NESSIE_TOKEN' });
    const without = await readCatalogSnapshot(config, { env: {} });
    expect(without.status).toBe('unknown');
    expect(without.reason).toContain('NESSIE_TOKEN');
    const unauthorised = await readCatalogSnapshot(nessie(url), { env: {} });
    expect(unauthorised.reason).toMatch(/HTTP 401 \(authentication required/);
    const withToken = await readCatalogSnapshot(config, { env: { NESSIE_TOKEN: 's3cr3t-nessie-token' } });
    expect(withToken).toMatchObject({ status: 'ok', snapshotId: HASH });
  });

  it('reports an unknown reference with the server message', async () => {
    const { url } = await serve(nessieTrees);
    const snapshot = await readCatalogSnapshot(nessie(url, { ref: 'nope' }), { env: {} });
    expect(snapshot).toMatchObject({ status: 'unknown', snapshotId: null, ref: 'nope' });
    expect(snapshot.reason).toContain("Named reference 'nope' not found");
  });

  it('is unknown on a server error, on malformed JSON and on an answer without a hash', async () => {
    for (const answer of [
      { status: 500, body: '<html>Internal Server Error</html>' },
      { body: '{"reference": {"hash": ' },
      { body: { reference: { type: 'BRANCH', name: 'main' } } },
    ]) {
      const { url } = await serve(() => answer);
      const snapshot = await readCatalogSnapshot(nessie(url), { env: {} });
      expect(snapshot.status).toBe('unknown');
      expect(snapshot.reason).toMatch(/HTTP 500: <html>Internal Server Error|malformed JSON|no reference.hash/);
      await server!.close();
      server = undefined;
    }
  });

  it('gives up within the timeout when the server never answers', async () => {
    const { url } = await serve(() => 'hang');
    const started = Date.now();
    const snapshot = await readCatalogSnapshot(nessie(url, { timeout_ms: 200 }), { env: {} });
    expect(snapshot.status).toBe('unknown');
    expect(snapshot.reason).toContain('no answer within 200 ms');
    // A bound, not a speed claim: without the timeout this would hang until the test timeout.
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('is unknown when nothing listens', async () => {
    const { url } = await serve(nessieTrees);
    await server!.close();
    server = undefined;
    const snapshot = await readCatalogSnapshot(nessie(url), { env: {} });
    expect(snapshot.status).toBe('unknown');
    expect(snapshot.reason).toMatch(/could not reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
  });

  it('refuses to follow a redirect with the token', async () => {
    const { url, seen } = await serve(() => ({ status: 307, headers: { location: 'http://127.0.0.1:1/elsewhere?token=leak' } }));
    const snapshot = await readCatalogSnapshot(nessie(url, { token_env: 'T' }), { env: { T: 'tok-123456789' } });
    expect(snapshot.reason).toContain('redirected (HTTP 307) to http://127.0.0.1:1/elsewhere;');
    expect(seen).toHaveLength(1);
  });
});
