import type { DuckDBConnection } from '@duckdb/node-api';
import { inTransaction, isOutOfMemory } from '../db/database.js';
import { refreshHistoryAggregates } from './history-aggregates.js';
import { refreshNodeChanges } from './node-changes.js';
import { dropMatchedHistory, refreshManifestInvocations, refreshRunHistory } from './run-history.js';
import { refreshTestRunStates } from './test-history.js';

/**
 * Refreshes the tables derived across invocations once `ids` were ingested, re-ingested or
 * forgotten, each after those it reads: manifest_invocation (v_invocation_sequence.has_manifest),
 * node changes (of the manifests in `changedFrom`), run history, then test history and node
 * runtime, which read run history. Ingest and forget both end here, so a new derived table is refreshed by both.
 */
export async function refreshDerivedTables(connection: DuckDBConnection, ids: readonly string[], changedFrom: readonly string[]): Promise<void> {
  await refreshManifestInvocations(connection, ids);
  await refreshNodeChanges(connection, changedFrom);
  await refreshHistories(connection, ids);
}

async function refreshHistories(connection: DuckDBConnection, ids: readonly string[]): Promise<void> {
  await refreshRunHistory(connection, ids);
  await refreshTestRunStates(connection, ids);
  await refreshHistoryAggregates(connection, ids);
  await dropMatchedHistory(connection);
}

/**
 * The same refresh, for ingest, in three transactions: manifest_invocation first, as both of the
 * others read it, then node changes on a second connection beside run and test history. Neither
 * of the two reads what the other writes, and each is a chain of DuckDB statements that leaves
 * our thread idle: side by side, the two cores run both (a capture of 10,000 nodes spent 110 ms
 * in node changes and 170 ms in the histories, one after the other).
 *
 * What marks the work as undone is run_result_pending, which the histories' refresh clears: it
 * commits only after node changes did, so a failure of either leaves the invocations pending and
 * the next catch-up derives both again (catch-up.ts, refreshUnmatched). Two refreshes at once
 * need more of the writer's memory; when they do not fit, it runs again one after the other.
 */
export async function refreshDerivedTablesSideBySide(
  connection: DuckDBConnection,
  side: DuckDBConnection,
  ids: readonly string[],
  changedFrom: readonly string[],
): Promise<void> {
  await inTransaction(connection, () => refreshManifestInvocations(connection, ids));
  const changes = inTransaction(side, () => refreshNodeChanges(side, changedFrom));
  const histories = inTransaction(connection, async () => {
    await refreshHistories(connection, ids);
    await changes;
  });
  // Both settle before anything else touches these tables: a retry beside a refresh still running would conflict with it.
  const failed = (await Promise.allSettled([changes, histories])).find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (!failed) return;
  if (!isOutOfMemory(failed.reason)) throw failed.reason;
  await inTransaction(connection, () => refreshDerivedTables(connection, ids, changedFrom));
}
