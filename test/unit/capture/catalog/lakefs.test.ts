import { afterEach, describe, expect, it } from 'vitest';
import { parseCatalogConfig, readCatalogSnapshot, type CatalogConfig } from '../../../../src/capture/catalog/index.js';
import { startFakeServer, type FakeServer, type Handler } from './fake-server.js';

const COMMIT = 'a91f56a7e11be1348fc405053e5234e4af7d6da01ed02f3d9a8ba7b1f71499c8';
const KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function lakefs(endpoint: string, extra: Record<string, unknown> = {}): CatalogConfig {
  return parseCatalogConfig({ provider: 'lakefs', endpoint, repository: 'lake', username_env: 'LAKEFS_KEY_ID', password_env: 'LAKEFS_SECRET', ...extra })!;
}

const env = { LAKEFS_KEY_ID: KEY_ID, LAKEFS_SECRET: SECRET };
const basic = `Basic ${Buffer.from(`${KEY_ID}:${SECRET}`).toString('base64')}`;

/** GET /api/v1/repositories/{repository}/branches/{branch} → Ref { id, commit_id }, basic auth as lakeFS does. */
const lakefsBranches: Handler = (request) => {
  if (request.authorization !== basic) return { status: 401, body: { message: 'error authenticating request' } };
  const match = /^\/api\/v1\/repositories\/([^/]+)\/branches\/([^/]+)$/.exec(request.url);
  if (match?.[1] !== 'lake') return { status: 404, body: { message: 'repository not found' } };
  const branch = decodeURIComponent(match[2]!);
  if (branch !== 'main' && branch !== 'feature/x') return { status: 404, body: { message: 'branch not found' } };
  return { body: { id: branch, commit_id: COMMIT } };
};

describe('lakefs provider', () => {
  it('reads the head commit of the branch with basic auth', async () => {
    server = await startFakeServer(lakefsBranches);
    const snapshot = await readCatalogSnapshot(lakefs(`${server.url}/api/v1`), { env });
    expect(snapshot).toEqual({ provider: 'lakefs', status: 'ok', snapshotId: COMMIT, atomic: true, ref: 'main', uri: server.url });
    expect(server.seen[0]!.url).toBe('/api/v1/repositories/lake/branches/main');
  });

  it('encodes a branch name with a slash as one path segment', async () => {
    server = await startFakeServer(lakefsBranches);
    const snapshot = await readCatalogSnapshot(lakefs(server.url, { branch: 'feature/x' }), { env });
    expect(snapshot).toMatchObject({ status: 'ok', ref: 'feature/x' });
    expect(server.seen[0]!.url).toBe('/api/v1/repositories/lake/branches/feature%2Fx');
  });

  it('is unknown with wrong credentials or an unknown branch', async () => {
    server = await startFakeServer(lakefsBranches);
    const refused = await readCatalogSnapshot(lakefs(server.url), { env: { ...env, LAKEFS_SECRET: 'wrong-secret-value' } });
    expect(refused.reason).toContain('HTTP 401');
    expect(refused.reason).toContain('error authenticating request');
    const missing = await readCatalogSnapshot(lakefs(server.url, { branch: 'gone' }), { env });
    expect(missing).toMatchObject({ status: 'unknown', snapshotId: null });
    expect(missing.reason).toMatch(/HTTP 404 .*branch not found/);
  });

  it('is unknown when the answer has no commit_id', async () => {
    server = await startFakeServer(() => ({ body: { id: 'main' } }));
    const snapshot = await readCatalogSnapshot(lakefs(server.url), { env });
    expect(snapshot.reason).toContain('no commit_id');
  });
});
