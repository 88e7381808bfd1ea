import type { DuckDBConnection } from '@duckdb/node-api';
import { refreshNodeChanges } from './node-changes.js';
import { dropMatchedHistory, refreshManifestInvocations, refreshRunHistory } from './run-history.js';
import { refreshTestHistory } from './test-history.js';

/**
 * Refreshes the tables derived across invocations once `ids` were ingested, re-ingested or
 * forgotten, each after those it reads: manifest_invocation (v_invocation_sequence.has_manifest),
 * node changes (of the manifests in `changedFrom`), run history, then test history, which reads
 * run history. Ingest and forget both end here, so a new derived table is refreshed by both.
 */
export async function refreshDerivedTables(connection: DuckDBConnection, ids: readonly string[], changedFrom: readonly string[]): Promise<void> {
  await refreshManifestInvocations(connection, ids);
  await refreshNodeChanges(connection, changedFrom);
  await refreshRunHistory(connection, ids);
  await refreshTestHistory(connection, ids);
  await dropMatchedHistory(connection);
}
