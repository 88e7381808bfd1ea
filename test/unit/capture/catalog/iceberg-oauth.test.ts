import { afterEach, describe, expect, it } from 'vitest';
import { parseCatalogConfig, readCatalogSnapshot, type CatalogConfig } from '../../../../src/capture/catalog/index.js';
import { startFakeServer, type FakeServer, type Handler } from './fake-server.js';

const CLIENT_ID = 'dbt-runner';
const CLIENT_SECRET = 'oauth-client-secret-98765';
const ACCESS_TOKEN = 'issued-access-token-abcdef';
const env = { ICE_CLIENT_ID: CLIENT_ID, ICE_CLIENT_SECRET: CLIENT_SECRET };

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(handler: Handler): Promise<FakeServer> {
  const server = await startFakeServer(handler);
  servers.push(server);
  return server;
}

/** The OAuth2 client-credentials exchange: a form-encoded POST answered with an OAuthTokenResponse. */
const tokenEndpoint: Handler = (request) => {
  const form = new URLSearchParams(request.body);
  if (request.method !== 'POST' || request.contentType !== 'application/x-www-form-urlencoded' || form.get('grant_type') !== 'client_credentials') {
    return { status: 400, body: { error: 'invalid_request', error_description: 'malformed token request' } };
  }
  if (form.get('client_id') !== CLIENT_ID || form.get('client_secret') !== CLIENT_SECRET) {
    return { status: 401, body: { error: 'invalid_client', error_description: 'Client authentication failed' } };
  }
  return {
    body: {
      access_token: ACCESS_TOKEN,
      token_type: 'bearer',
      expires_in: 3600,
      issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      scope: form.get('scope'),
    },
  };
};

/** A catalog that wants the issued token; /v1/oauth/tokens is its own (deprecated) token endpoint. */
const catalog: Handler = (request) => {
  if (request.url === '/v1/oauth/tokens') return tokenEndpoint(request);
  if (request.authorization !== `Bearer ${ACCESS_TOKEN}`)
    return { status: 401, body: { error: { message: 'Not authorized', type: 'NotAuthorizedException', code: 401 } } };
  if (request.url === '/v1/config') return { body: { defaults: {}, overrides: {} } };
  return { body: '{"metadata":{"current-snapshot-id":42}}' };
};

function iceberg(uri: string, extra: Record<string, unknown> = {}): CatalogConfig {
  return parseCatalogConfig({ provider: 'iceberg-rest', uri, client_id_env: 'ICE_CLIENT_ID', client_secret_env: 'ICE_CLIENT_SECRET', ...extra })!;
}

const tables = [{ namespace: ['raw'], name: 'orders' }];

describe('iceberg-rest OAuth2 client credentials', () => {
  it("exchanges them at the catalog's /v1/oauth/tokens, then sends the bearer token", async () => {
    const server = await serve(catalog);
    const snapshot = await readCatalogSnapshot(iceberg(server.url, { scope: 'PRINCIPAL_ROLE:ALL' }), { env, tables });
    expect(snapshot).toMatchObject({ status: 'ok', perTable: { 'raw.orders': '42' } });
    const [token, ...rest] = server.seen;
    expect(Object.fromEntries(new URLSearchParams(token!.body))).toEqual({
      grant_type: 'client_credentials',
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      scope: 'PRINCIPAL_ROLE:ALL',
    });
    expect(rest.map((r) => r.authorization)).toEqual([`Bearer ${ACCESS_TOKEN}`, `Bearer ${ACCESS_TOKEN}`]);
  });

  it('uses oauth2_server_uri when configured, with the default scope', async () => {
    const idp = await serve(tokenEndpoint);
    const server = await serve(catalog);
    const snapshot = await readCatalogSnapshot(iceberg(server.url, { oauth2_server_uri: `${idp.url}/realms/lake/token` }), { env, tables });
    expect(snapshot.status).toBe('ok');
    expect(idp.seen[0]!.url).toBe('/realms/lake/token');
    expect(new URLSearchParams(idp.seen[0]!.body).get('scope')).toBe('catalog');
    expect(server.seen.map((r) => r.url)).not.toContain('/v1/oauth/tokens');
  });

  it('is unknown when the secret is refused or missing', async () => {
    const server = await serve(catalog);
    const refused = await readCatalogSnapshot(iceberg(server.url), { env: { ...env, ICE_CLIENT_SECRET: 'not-the-secret' }, tables });
    expect(refused.reason).toBe(
      'OAuth2 token request (client credentials): HTTP 401 (credentials refused: check the values of the variables named by the catalog.*_env keys): Client authentication failed',
    );
    const missing = await readCatalogSnapshot(iceberg(server.url), { env: { ICE_CLIENT_ID: CLIENT_ID }, tables });
    expect(missing.reason).toContain('ICE_CLIENT_SECRET (named by catalog.client_secret_env) is not set');
  });
});
