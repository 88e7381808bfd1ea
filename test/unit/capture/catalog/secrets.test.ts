import { afterEach, describe, expect, it } from 'vitest';
import { parseCatalogConfig, readCatalogSnapshot } from '../../../../src/capture/catalog/index.js';
import { startFakeServer, type FakeServer, type Handler } from './fake-server.js';

/**
 * Credentials must appear in no snapshot, reason or error, even when a server echoes
 * exactly what it was sent: the worst case for us, and a real one for debug-mode proxies.
 */

const SECRETS = {
  NESSIE_TOKEN: 'nessie-tok-7Hq2/Zx+w==',
  LAKE_KEY: 'AKIAECHOKEY0001',
  LAKE_SECRET: 'lake secret/with+odd&chars=',
  ICE_ID: 'ice-client-id-77',
  ICE_SECRET: 'ice-client-secret/+= 99',
};
const ISSUED = 'issued-token-echoed-back-0001';

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(handler: Handler): Promise<string> {
  const server = await startFakeServer(handler);
  servers.push(server);
  return server.url;
}

/** Fails every request, quoting its Authorization header and body back. */
const echo: Handler = (request) => ({
  status: request.url.endsWith('/tokens') ? 400 : 401,
  body: { message: `rejected ${request.authorization ?? ''} body=${request.body}`, error_description: request.body },
});

function expectNoSecret(value: unknown): void {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  for (const secret of [...Object.values(SECRETS), ISSUED]) {
    expect(text).not.toContain(secret);
    expect(text).not.toContain(encodeURIComponent(secret));
    expect(text).not.toContain(Buffer.from(secret).toString('base64'));
  }
  expect(text).not.toContain(Buffer.from(`${SECRETS.LAKE_KEY}:${SECRETS.LAKE_SECRET}`).toString('base64'));
}

describe('credentials never leave', () => {
  it('are masked from reasons when servers echo the request', async () => {
    const uri = await serve(echo);
    const configs = [
      { provider: 'nessie', uri, token_env: 'NESSIE_TOKEN' },
      { provider: 'lakefs', endpoint: uri, repository: 'r', username_env: 'LAKE_KEY', password_env: 'LAKE_SECRET' },
      { provider: 'iceberg-rest', uri, client_id_env: 'ICE_ID', client_secret_env: 'ICE_SECRET' },
    ];
    for (const raw of configs) {
      const snapshot = await readCatalogSnapshot(parseCatalogConfig(raw)!, { env: SECRETS, tables: [{ namespace: ['a'], name: 'b' }] });
      expect(snapshot.status).toBe('unknown');
      expect(snapshot.reason).toContain('***');
      expectNoSecret(snapshot);
    }
  });

  it('masks a token obtained on the way when a later request echoes it', async () => {
    const uri = await serve((request) =>
      request.url === '/v1/oauth/tokens'
        ? { body: { access_token: ISSUED, token_type: 'bearer' } }
        : { status: 500, body: { error: { message: `boom for ${request.authorization}`, type: 'X', code: 500 } } },
    );
    const config = parseCatalogConfig({ provider: 'iceberg-rest', uri, client_id_env: 'ICE_ID', client_secret_env: 'ICE_SECRET' })!;
    const snapshot = await readCatalogSnapshot(config, { env: SECRETS, tables: [{ namespace: ['a'], name: 'b' }] });
    expect(snapshot.reason).toBe('Iceberg REST catalog configuration: HTTP 500: boom for Bearer ***');
    expectNoSecret(snapshot);
  });

  it('masks a credential a server returns as the snapshot id', async () => {
    const uri = await serve(() => ({ body: { reference: { type: 'BRANCH', name: 'main', hash: `x${SECRETS.NESSIE_TOKEN}` } } }));
    const snapshot = await readCatalogSnapshot(parseCatalogConfig({ provider: 'nessie', uri, token_env: 'NESSIE_TOKEN' })!, { env: SECRETS });
    expectNoSecret(snapshot);
  });

  it('are not echoed by config errors, even when pasted where a name belongs', () => {
    const attempts = [
      { provider: 'nessie', uri: 'http://127.0.0.1:19120', token_env: SECRETS.NESSIE_TOKEN },
      { provider: 'nessie', uri: `https://user:${encodeURIComponent(SECRETS.LAKE_SECRET)}@127.0.0.1/` },
      { provider: 'nessie', uri: `https://${SECRETS.NESSIE_TOKEN.slice(0, 10)}@127.0.0.1/` },
      { provider: 'lakefs', endpoint: `http://127.0.0.1/?access_token=${SECRETS.LAKE_KEY}`, repository: 'r' },
      { provider: 'iceberg-rest', uri: 'http://127.0.0.1', client_id_env: 'ICE_ID', client_secret_env: SECRETS.ICE_SECRET },
    ];
    for (const raw of attempts) {
      let message = '';
      try {
        parseCatalogConfig(raw);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/^catalog\.\w+ /);
      expectNoSecret(message);
      expect(message).not.toContain(SECRETS.NESSIE_TOKEN.slice(0, 10));
    }
  });

  it('are masked before a long server message is cut, so no part of one survives the cut', async () => {
    const token = SECRETS.NESSIE_TOKEN;
    const uri = await serve(() => ({ status: 401, body: { message: `${'x'.repeat(190)} ${token} and more` } }));
    const snapshot = await readCatalogSnapshot(parseCatalogConfig({ provider: 'nessie', uri, token_env: 'NESSIE_TOKEN' })!, { env: SECRETS });
    expect(snapshot.reason).toContain('x'.repeat(20));
    expect(snapshot.reason).not.toContain(token.slice(0, 6));
  });

  it("mask the token's base64 at every alignment inside a longer base64 text", async () => {
    const token = SECRETS.NESSIE_TOKEN;
    const encodings = ['', 'a', 'ab'].map((prefix) => Buffer.from(`${prefix}${token}`).toString('base64'));
    const uri = await serve(() => ({ status: 401, body: { message: `echo ${encodings.join(' ')}` } }));
    const snapshot = await readCatalogSnapshot(parseCatalogConfig({ provider: 'nessie', uri, token_env: 'NESSIE_TOKEN' })!, { env: SECRETS });
    // Past the first group, each encoding's characters are decided by the token's bytes alone.
    for (const encoded of encodings) expect(snapshot.reason).not.toContain(encoded.slice(4, 20));
  });

  it('refuses a secret-shaped value in a *_env key without echoing it, though it is letters, digits and _', () => {
    const pasted = `ghp_${'x9Kq2LmP7vRt4Ws8Yz1N'.repeat(2)}`;
    expect(() => parseCatalogConfig({ provider: 'nessie', uri: 'http://127.0.0.1', token_env: pasted })).toThrow(
      /^catalog\.token_env must name an environment variable/,
    );
    try {
      parseCatalogConfig({ provider: 'nessie', uri: 'http://127.0.0.1', token_env: pasted });
    } catch (error) {
      expect((error as Error).message).not.toContain(pasted.slice(4, 12));
    }
  });
});
