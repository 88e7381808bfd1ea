import { afterEach, describe, expect, it } from 'vitest';
import { parseCatalogConfig, readCatalogSnapshot, type CatalogConfig, type CatalogTable } from '../../../../src/capture/catalog/index.js';
import { sha256 } from '../../../../src/vocab/hash.js';
import { startFakeServer, type FakeServer, type Handler, type SeenRequest } from './fake-server.js';

/** Snapshot ids beyond 2^53: JSON.parse would round them. */
const ORDERS_SNAPSHOT = '8744736658442914487';
const CUSTOMERS_SNAPSHOT = '3051729675574597004';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const tables: CatalogTable[] = [
  { namespace: ['raw', 'shop'], name: 'orders' },
  { namespace: ['raw'], name: 'customers' },
  { namespace: ['raw'], name: 'customers' },
  { namespace: ['raw'], name: 'empty' },
];

/** A LoadTableResult as the spec shapes it, written as text so the int64 ids stay exact. */
function loadTableResult(currentSnapshotId: string): string {
  return `{"metadata-location":"s3://wh/t/metadata/00001.metadata.json","metadata":{"format-version":2,"table-uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1","location":"s3://wh/t","current-snapshot-id":${currentSnapshotId},"snapshots":[{"snapshot-id":1,"timestamp-ms":1}],"properties":{"note":"\\"current-snapshot-id\\": 1"}},"config":{}}`;
}

interface CatalogOptions {
  token?: string;
  config?: object;
  prefix?: string;
}

/** GET /v1/config and GET /v1/{prefix}/namespaces/{ns}/tables/{table}, as the Iceberg REST OpenAPI spec defines them. */
function icebergCatalog(options: CatalogOptions = {}): Handler {
  const prefix = options.prefix === undefined ? '' : `/${options.prefix}`;
  const known: Record<string, string> = {
    'raw%1Fshop/orders': loadTableResult(ORDERS_SNAPSHOT),
    'raw%2Eshop/orders': loadTableResult(ORDERS_SNAPSHOT),
    'raw/customers': loadTableResult(CUSTOMERS_SNAPSHOT),
    'raw/empty': loadTableResult('null'),
  };
  return (request: SeenRequest) => {
    if (options.token !== undefined && request.authorization !== `Bearer ${options.token}`) {
      return { status: 401, body: { error: { message: 'Not authorized', type: 'NotAuthorizedException', code: 401 } } };
    }
    if (request.url.startsWith('/v1/config')) return { body: options.config ?? { defaults: {}, overrides: {} } };
    const match = new RegExp(`^/v1${prefix}/namespaces/([^/]+)/tables/([^/?]+)\\?snapshots=refs$`).exec(request.url);
    const body = match ? known[`${match[1]}/${match[2]}`] : undefined;
    if (body === undefined) return { status: 404, body: { error: { message: 'Table does not exist', type: 'NoSuchTableException', code: 404 } } };
    return { body };
  };
}

function iceberg(uri: string, extra: Record<string, unknown> = {}): CatalogConfig {
  return parseCatalogConfig({ provider: 'iceberg-rest', uri, ...extra })!;
}

const expectedId = sha256([`raw.customers=${CUSTOMERS_SNAPSHOT}`, 'raw.empty=none', `raw.shop.orders=${ORDERS_SNAPSHOT}`].sort().join('\n'));

describe('iceberg-rest provider', () => {
  it('combines the exact current snapshot of each table, not atomic', async () => {
    server = await startFakeServer(icebergCatalog());
    const snapshot = await readCatalogSnapshot(iceberg(server.url), { env: {}, tables });
    expect(snapshot).toEqual({
      provider: 'iceberg-rest',
      status: 'ok',
      snapshotId: expectedId,
      atomic: false,
      uri: server.url,
      perTable: { 'raw.shop.orders': ORDERS_SNAPSHOT, 'raw.customers': CUSTOMERS_SNAPSHOT, 'raw.empty': null },
    });
    // The duplicate table is read once; namespace levels are joined by the unit separator.
    expect(server.seen.map((r) => r.url)).toEqual(expect.arrayContaining(['/v1/namespaces/raw%1Fshop/tables/orders?snapshots=refs']));
    expect(server.seen).toHaveLength(4);
  });

  it('gives the same id whatever the order of the tables', async () => {
    server = await startFakeServer(icebergCatalog());
    const reversed = await readCatalogSnapshot(iceberg(server.url), { env: {}, tables: [...tables].reverse() });
    expect(reversed.snapshotId).toBe(expectedId);
  });

  it('sends the warehouse and follows the prefix and separator the server overrides', async () => {
    server = await startFakeServer(
      icebergCatalog({ prefix: 'cat-1', config: { defaults: { prefix: 'ignored' }, overrides: { prefix: 'cat-1', 'namespace-separator': '%2E' } } }),
    );
    const snapshot = await readCatalogSnapshot(iceberg(server.url, { warehouse: 's3://wh one/', prefix: 'mine' }), { env: {}, tables: tables.slice(0, 2) });
    expect(server.seen[0]!.url).toBe('/v1/config?warehouse=s3%3A%2F%2Fwh%20one%2F');
    expect(
      server.seen
        .slice(1)
        .map((r) => r.url)
        .sort(),
    ).toEqual(['/v1/cat-1/namespaces/raw%2Eshop/tables/orders?snapshots=refs', '/v1/cat-1/namespaces/raw/tables/customers?snapshots=refs']);
    expect(snapshot.perTable).toEqual({ 'raw.shop.orders': ORDERS_SNAPSHOT, 'raw.customers': CUSTOMERS_SNAPSHOT });
  });

  it('records tables the catalog does not know as absent, and fails when it knows none', async () => {
    server = await startFakeServer(icebergCatalog());
    const withMissing = await readCatalogSnapshot(iceberg(server.url), { env: {}, tables: [...tables, { namespace: ['raw'], name: 'gone' }] });
    expect(withMissing.status).toBe('ok');
    expect(withMissing.perTable).not.toHaveProperty('raw.gone');
    expect(withMissing.reason).toContain('1 of 4 tables is not in the catalog (recorded as absent): raw.gone');
    expect(withMissing.snapshotId).not.toBe(expectedId);
    const none = await readCatalogSnapshot(iceberg(server.url), { env: {}, tables: [{ namespace: ['x'], name: 'y' }] });
    expect(none).toMatchObject({ status: 'unknown', snapshotId: null });
    expect(none.reason).toContain('the one table is not in the catalog');
  });

  it('is unknown with no tables to read', async () => {
    server = await startFakeServer(icebergCatalog());
    const snapshot = await readCatalogSnapshot(iceberg(server.url), { env: {} });
    expect(snapshot.reason).toContain('no tables to read');
    expect(server.seen).toHaveLength(0);
  });

  it('uses a bearer token from the environment', async () => {
    server = await startFakeServer(icebergCatalog({ token: 'ice-token-123456' }));
    const config = iceberg(server.url, { token_env: 'ICE_TOKEN' });
    const refused = await readCatalogSnapshot(config, { env: { ICE_TOKEN: 'wrong-token-0000' }, tables });
    expect(refused.reason).toMatch(/Iceberg REST catalog configuration: HTTP 401 .*: Not authorized/);
    const accepted = await readCatalogSnapshot(config, { env: { ICE_TOKEN: 'ice-token-123456' }, tables });
    expect(accepted.snapshotId).toBe(expectedId);
  });

  it('is unknown when a table answer is malformed or a table load fails', async () => {
    for (const answer of ['{"metadata": {"current-snapshot-id": 12', '{"metadata": {"current-snapshot-id": "abc"}}', '{"config": {}}']) {
      const catalog = icebergCatalog();
      server = await startFakeServer((request) => (request.url.includes('/tables/') ? { body: answer } : catalog(request)));
      const snapshot = await readCatalogSnapshot(iceberg(server.url), { env: {}, tables });
      expect(snapshot.status).toBe('unknown');
      expect(snapshot.reason).toMatch(/malformed JSON|not an integer|no metadata object/);
      await server.close();
      server = undefined;
    }
    const catalog = icebergCatalog();
    server = await startFakeServer((request) =>
      request.url.includes('customers') ? { status: 503, body: { error: { message: 'Slow down', type: 'ServiceUnavailable', code: 503 } } } : catalog(request),
    );
    const snapshot = await readCatalogSnapshot(iceberg(server.url), { env: {}, tables });
    expect(snapshot.reason).toBe('Iceberg table raw.customers: HTTP 503: Slow down');
  });

  it('gives up within the timeout when a table load hangs', async () => {
    const catalog = icebergCatalog();
    server = await startFakeServer((request) => (request.url.includes('orders') ? 'hang' : catalog(request)));
    const snapshot = await readCatalogSnapshot(iceberg(server.url, { timeout_ms: 250 }), { env: {}, tables });
    expect(snapshot).toMatchObject({ status: 'unknown', snapshotId: null });
    expect(snapshot.reason).toContain('no answer within 250 ms');
  });
});
