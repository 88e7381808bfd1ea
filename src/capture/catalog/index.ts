/**
 * Catalog snapshot providers: what state of the data a dbt run read.
 * - provider: a kind of catalog we can ask (nessie, lakefs, iceberg-rest) or a local source of
 *   the id (command, env), configured under `catalog:` in dbtattic.yml.
 * - snapshot id: the provider's name for that state (a Nessie or lakeFS commit; for Iceberg
 *   REST, a hash over each table's current snapshot).
 * - atomic: one id covers all tables at one instant; Iceberg REST reads table by table.
 */
export { parseCatalogConfig, CATALOG_PROVIDERS, DEFAULT_CATALOG_TIMEOUT_MS } from './config.js';
export type { CatalogConfig, CatalogProvider } from './config.js';
export { readCatalogSnapshot } from './snapshot.js';
export type { CatalogSnapshot, ReadCatalogOptions } from './snapshot.js';
export type { CatalogTable } from './provider.js';
