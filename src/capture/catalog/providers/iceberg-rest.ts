import { countOf } from '../../../vocab/count.js';
import { mapLimited } from '../../../vocab/parallel.js';
import { AtticError } from '../../../errors.js';
import type { IcebergRestConfig } from '../config.js';
import { HttpStatusError, requestBytes, requestJson } from '../http.js';
import type { CatalogTable, ProviderContext, ProviderReading } from '../provider.js';
import { readIcebergAuthHeaders } from './iceberg-auth.js';
import { combineSnapshotIds, readCurrentSnapshotId } from './iceberg-metadata.js';

/**
 * An Iceberg REST catalog versions each table on its own: there is no catalog-wide commit,
 * so we read the current snapshot of every table the project reads and combine them. The
 * result is not atomic: a writer may commit to one table between two of our reads.
 * GET {uri}/v1/config[?warehouse=…] → `{ defaults, overrides }` (prefix, namespace-separator),
 * then GET {uri}/v1/{prefix}/namespaces/{ns}/tables/{table} per table.
 */

const PARALLEL_LOADS = 8;
/** The unit separator, URL-encoded: the spec's default between namespace levels in a path. */
const DEFAULT_NAMESPACE_SEPARATOR = '%1F';

interface CatalogRoutes {
  prefix: string;
  namespaceSeparator: string;
}

export async function readIcebergRestSnapshot(config: IcebergRestConfig, ctx: ProviderContext): Promise<ProviderReading> {
  const tables = uniqueTables(ctx.tables);
  if (tables.size === 0) {
    throw new AtticError('catalog', 'iceberg-rest: no tables to read; the project declares no sources, so there is no snapshot to record.');
  }
  const headers = await readIcebergAuthHeaders(config, ctx);
  const routes = await readCatalogRoutes(config, ctx, headers);
  const found = await mapLimited([...tables.values()], PARALLEL_LOADS, (table) => readTableSnapshot(config, ctx, headers, routes, table));
  const perTable: Record<string, string | null> = {};
  const hashed = new Map<string, string | null>();
  const absent: string[] = [];
  for (const table of found) {
    hashed.set(table.key, table.state === 'absent' ? 'absent' : table.id);
    if (table.state === 'absent') absent.push(table.key);
    else perTable[table.key] = table.id;
  }
  if (absent.length === found.length) {
    throw new AtticError(
      'catalog',
      `iceberg-rest: ${found.length === 1 ? 'the one table is not' : `none of the ${found.length} tables is`} in the catalog (first: ${absent[0]}); check catalog.warehouse, catalog.prefix and the sources' schema names.`,
    );
  }
  return { snapshotId: combineSnapshotIds(hashed), perTable, note: describeAbsent(absent, found.length) };
}

function describeAbsent(absent: readonly string[], total: number): string | undefined {
  if (absent.length === 0) return undefined;
  const listed = absent.slice(0, 5).join(', ') + (absent.length > 5 ? ', …' : '');
  return `${absent.length} of ${countOf(total, 'table')} ${absent.length === 1 ? 'is' : 'are'} not in the catalog (recorded as absent): ${listed}`;
}

function tableKey(table: CatalogTable): string {
  return [...table.namespace, table.name].join('.');
}

function uniqueTables(tables: readonly CatalogTable[]): Map<string, CatalogTable> {
  return new Map(tables.map((table) => [tableKey(table), table]));
}

async function readCatalogRoutes(config: IcebergRestConfig, ctx: ProviderContext, headers: Record<string, string>): Promise<CatalogRoutes> {
  const query = config.warehouse === undefined ? '' : `?warehouse=${encodeURIComponent(config.warehouse)}`;
  const body = await requestJson(ctx, { what: 'Iceberg REST catalog configuration', url: `${config.uri}/v1/config${query}`, headers });
  const defaults = readStringMap(body, 'defaults');
  const overrides = readStringMap(body, 'overrides');
  // Precedence as the Iceberg clients apply it: server defaults, then ours, then server overrides.
  const prefix = overrides.prefix ?? config.prefix ?? defaults.prefix ?? '';
  const namespaceSeparator = overrides['namespace-separator'] ?? defaults['namespace-separator'] ?? DEFAULT_NAMESPACE_SEPARATOR;
  return { prefix: prefix.replace(/^\/+|\/+$/g, ''), namespaceSeparator };
}

/** A table's current snapshot id (null when it has none), or absent when the catalog does not know it (404). */
type TableSnapshot = { key: string; state: 'found'; id: string | null } | { key: string; state: 'absent' };

async function readTableSnapshot(
  config: IcebergRestConfig,
  ctx: ProviderContext,
  headers: Record<string, string>,
  routes: CatalogRoutes,
  table: CatalogTable,
): Promise<TableSnapshot> {
  const namespace = table.namespace.map(encodeURIComponent).join(routes.namespaceSeparator);
  const base = routes.prefix === '' ? `${config.uri}/v1` : `${config.uri}/v1/${routes.prefix}`;
  // snapshots=refs: only the snapshots that refs point at, not the whole history.
  const url = `${base}/namespaces/${namespace}/tables/${encodeURIComponent(table.name)}?snapshots=refs`;
  const key = tableKey(table);
  const what = `Iceberg table ${key}`;
  try {
    return { key, state: 'found', id: readCurrentSnapshotId(await requestBytes(ctx, { what, url, headers }), what) };
  } catch (error) {
    if (error instanceof HttpStatusError && error.status === 404) return { key, state: 'absent' };
    throw error;
  }
}

function readStringMap(body: unknown, key: string): Record<string, string | undefined> {
  const value = typeof body === 'object' && body !== null && key in body ? (body as Record<string, unknown>)[key] : undefined;
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}
