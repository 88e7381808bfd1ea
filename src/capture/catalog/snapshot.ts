import type { CatalogConfig } from './config.js';
import type { CatalogTable, ProviderContext, ProviderReading } from './provider.js';
import { readCommandSnapshot, readEnvSnapshot } from './providers/command.js';
import { readIcebergRestSnapshot } from './providers/iceberg-rest.js';
import { readLakefsSnapshot } from './providers/lakefs.js';
import { readNessieSnapshot } from './providers/nessie.js';
import { registerSecrets, SecretMask } from './secrets.js';

/**
 * The data side of a run's context: which state of the catalog dbt read. Reading it must
 * never fail a dbt run, so every problem (a down server, a missing variable, a bad answer)
 * becomes `status: 'unknown'` with a reason, within the timeout.
 */
export interface CatalogSnapshot {
  provider: string;
  status: 'ok' | 'unknown';
  snapshotId: string | null;
  /** iceberg-rest only: each table's current snapshot id (null: the table has no snapshot yet). */
  perTable?: Record<string, string | null>;
  /** Whether one id covers all tables at one instant (a Nessie or lakeFS commit) or was read table by table. */
  atomic: boolean;
  reason?: string;
  /** The branch or reference read (nessie, lakefs). */
  ref?: string;
  /** The catalog's address, credential-free. */
  uri?: string;
}

export interface ReadCatalogOptions {
  env: Record<string, string | undefined>;
  /** Injected in tests; the global fetch otherwise. */
  fetch?: typeof fetch;
  /** Overrides catalog.timeout_ms: the bound on the whole reading, all requests included. */
  timeoutMs?: number;
  /** The tables the project reads (from the manifest's sources); iceberg-rest needs them. */
  tables?: readonly CatalogTable[];
}

export async function readCatalogSnapshot(config: CatalogConfig, options: ReadCatalogOptions): Promise<CatalogSnapshot> {
  const mask = new SecretMask();
  const timeoutMs = options.timeoutMs ?? config.timeoutMs;
  const { provider, ...where } = describeConfig(config);
  try {
    registerSecrets(config, options.env, mask);
    const ctx: ProviderContext = {
      env: options.env,
      fetch: options.fetch ?? globalThis.fetch,
      signal: AbortSignal.timeout(timeoutMs),
      timeoutMs,
      tables: options.tables ?? [],
      mask,
    };
    // timeout_ms bounds the whole reading exactly: whatever a provider still waits for is left behind.
    const reading = await withDeadline(readProvider(config, ctx), timeoutMs);
    return maskSnapshot({ provider, status: 'ok', snapshotId: reading.snapshotId, ...where, ...optional(reading) }, mask);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return maskSnapshot({ provider, status: 'unknown', snapshotId: null, ...where, reason }, mask);
  }
}

function readProvider(config: CatalogConfig, ctx: ProviderContext): Promise<ProviderReading> {
  switch (config.provider) {
    case 'nessie':
      return readNessieSnapshot(config, ctx);
    case 'lakefs':
      return readLakefsSnapshot(config, ctx);
    case 'iceberg-rest':
      return readIcebergRestSnapshot(config, ctx);
    case 'command':
      return readCommandSnapshot(config, ctx);
    case 'env':
      return Promise.resolve().then(() => readEnvSnapshot(config, ctx));
  }
}

function describeConfig(config: CatalogConfig): Pick<CatalogSnapshot, 'provider' | 'atomic' | 'ref' | 'uri'> {
  switch (config.provider) {
    case 'nessie':
      return { provider: config.provider, atomic: true, ref: config.ref, uri: config.uri };
    case 'lakefs':
      return { provider: config.provider, atomic: true, ref: config.branch, uri: config.endpoint };
    case 'iceberg-rest':
      return { provider: config.provider, atomic: false, uri: config.uri };
    case 'command':
    case 'env':
      return { provider: config.provider, atomic: config.atomic };
  }
}

function optional(reading: ProviderReading): Partial<CatalogSnapshot> {
  return {
    ...(reading.ref !== undefined && { ref: reading.ref }),
    ...(reading.perTable !== undefined && { perTable: reading.perTable }),
    ...(reading.note !== undefined && { reason: reading.note }),
  };
}

async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whatever a server echoed, no credential leaves in a snapshot. */
function maskSnapshot(snapshot: CatalogSnapshot, mask: SecretMask): CatalogSnapshot {
  const masked: CatalogSnapshot = { ...snapshot };
  if (masked.reason !== undefined) masked.reason = mask.mask(masked.reason);
  if (masked.snapshotId !== null) masked.snapshotId = mask.maskId(masked.snapshotId);
  if (masked.ref !== undefined) masked.ref = mask.mask(masked.ref);
  if (masked.perTable !== undefined) {
    masked.perTable = Object.fromEntries(Object.entries(masked.perTable).map(([table, id]) => [table, id === null ? null : mask.maskId(id)]));
  }
  return masked;
}
