import type { HttpContext } from './http.js';
import type { SecretMask } from './secrets.js';

/** What every provider receives and returns; `readCatalogSnapshot` adds the rest of the snapshot. */

/** A table the project reads, as the caller derives it from the manifest's sources. */
export interface CatalogTable {
  namespace: string[];
  name: string;
}

export interface ProviderContext extends HttpContext {
  env: Record<string, string | undefined>;
  tables: readonly CatalogTable[];
  /** Providers register secrets they obtain on the way (an OAuth2 access token). */
  mask: SecretMask;
}

export interface ProviderReading {
  snapshotId: string;
  /** The reference resolved by the server (Nessie's default branch has a name). */
  ref?: string;
  perTable?: Record<string, string | null>;
  /** Said even on success: tables the catalog does not know, for instance. */
  note?: string;
}
