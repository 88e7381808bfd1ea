import type { DuckDBConnection } from '@duckdb/node-api';
import { BUILD_SUCCESS_STATUSES } from '../../vocab/index.js';
import { plainResult } from '../db/plain-rows.js';

/**
 * Each node's builds as `plan` needs them: its newest attempt and its newest success, on one
 * target, on the planned branch ('own') and on the branch it defers to ('defer').
 * - A build is a result of a command that builds or tests (not compile, docs, show, clone).
 * - An attempt is a result that ran: skipped, no-op and reused results did not.
 * - A success is `success` (models, seeds, snapshots) or `pass` (tests).
 * "Newest" follows the order of history (when the invocation ended); an unknown time sorts as
 * newest, so it is never silently passed over.
 */
/** History's order: when the invocation ended (an unknown end sorts as newest, never passed over). */
const ORDER_KEY = 'coalesce(epoch_us(coalesce(completed_at, generated_at)), 9223372036854775807)';

export interface CatalogFact {
  status: string | null;
  snapshotId: string | null;
  atomic: boolean;
  perTable: Record<string, string | null> | null;
}

export interface BuildFact {
  invocationId: string;
  branch: string | null;
  status: string;
  finishedAtUs: number | null;
  /** The node as that invocation's own manifest had it; null when it has none. */
  fingerprint: string | null;
  checksum: string | null;
  configKey: string | null;
  catalog: CatalogFact | null;
}

export interface ScopedBuilds {
  lastAttempt: BuildFact | null;
  lastSuccess: BuildFact | null;
}

export interface NodeBuilds {
  own: ScopedBuilds;
  defer: ScopedBuilds | null;
}

interface BuildScope {
  invocationId: string;
  /** Only what had happened when the planned manifest was written counts (null: everything). */
  asOfUs: number | null;
  target: string | null;
  branch: string | null;
  deferTo: string | null;
}

export async function readBuildFacts(connection: DuckDBConnection, scope: BuildScope): Promise<Map<string, NodeBuilds>> {
  const succeeded = BUILD_SUCCESS_STATUSES.map((s) => `'${s}'`).join(', ');
  // One pass over the results: arg_max keeps, per node and scope, the invocation of the newest
  // attempt and of the newest success (a window over millions of results costs several times
  // more); only those few results are then read whole. Carrying the whole result through
  // arg_max instead (a struct per row) doubles the cost (bench/plan-scale.mjs).
  const sql = `
    WITH inv AS (
      SELECT invocation_id, branch, coalesce(completed_at, generated_at) AS done_at,
             ${ORDER_KEY} AS order_key,
             catalog_provider, catalog_status, catalog_snapshot_id, catalog_atomic, catalog_detail,
             CASE WHEN $3::VARCHAR IS NULL OR branch = $3 THEN 'own' WHEN branch = $4 THEN 'defer' END AS scope
      FROM invocation
      WHERE invocation_id <> $1 AND target IS NOT DISTINCT FROM $2::VARCHAR
        AND ($5::BIGINT IS NULL OR epoch_us(coalesce(completed_at, generated_at)) <= $5)
        AND command_builds(command)
    ),
    newest AS (
      SELECT r.unique_id, i.scope,
             arg_max(r.invocation_id, i.order_key) AS attempt_id,
             arg_max(r.invocation_id, i.order_key) FILTER (WHERE r.status IN (${succeeded})) AS success_id
      FROM run_result r JOIN inv i USING (invocation_id)
      WHERE i.scope IS NOT NULL AND r.status IS NOT NULL AND r.status NOT IN ('skipped', 'no-op', 'reused')
      GROUP BY r.unique_id, i.scope
    ),
    -- run_result's key is (invocation_id, unique_id): one row per build picked.
    result AS (
      SELECT r.unique_id, r.invocation_id, {'id': r.invocation_id, 'status': r.status, 'finished_us': epoch_us(coalesce(r.execute_completed_at, i.done_at))} AS build
      FROM run_result r JOIN inv i USING (invocation_id)
      SEMI JOIN (SELECT unique_id, attempt_id AS id FROM newest UNION SELECT unique_id, success_id FROM newest WHERE success_id IS NOT NULL) w
        ON w.unique_id = r.unique_id AND w.id = r.invocation_id
    ),
    latest AS (
      SELECT n.unique_id, n.scope, a.build AS attempt, s.build AS success
      FROM newest n
      JOIN result a ON a.unique_id = n.unique_id AND a.invocation_id = n.attempt_id
      LEFT JOIN result s ON s.unique_id = n.unique_id AND s.invocation_id = n.success_id
    ),
    picked AS (
      SELECT unique_id, scope, attempt AS build, true AS is_attempt, attempt.id = success.id AS is_success FROM latest
      UNION ALL
      SELECT unique_id, scope, success, false, true FROM latest WHERE success IS NOT NULL AND success.id <> attempt.id
    )
    SELECT p.unique_id, p.scope, p.is_attempt, coalesce(p.is_success, false) AS is_success,
           p.build.id AS invocation_id, i.branch, p.build.status AS status, p.build.finished_us AS finished_us,
           i.catalog_provider, i.catalog_status, i.catalog_snapshot_id, i.catalog_atomic, i.catalog_detail,
           ni.fingerprint, nv.checksum,
           CASE WHEN nv.node_version_id IS NOT NULL THEN ${configKey('nv')} END AS config_key
    FROM picked p
    JOIN inv i ON i.invocation_id = p.build.id
    LEFT JOIN node_invocation ni ON ni.invocation_id = p.build.id AND ni.unique_id = p.unique_id
    LEFT JOIN node_version nv ON nv.node_version_id = ni.node_version_id AND NOT nv.disabled`;
  const params = [
    scope.invocationId,
    scope.target,
    scope.branch,
    scope.branch === null ? null : scope.deferTo,
    scope.asOfUs === null ? null : String(scope.asOfUs),
  ];
  const found = plainResult(await connection.runAndReadAll(sql, params as string[])).rows;
  const byId = new Map<string, NodeBuilds>();
  for (const r of found) {
    const id = String(r.unique_id);
    const node = byId.get(id) ?? { own: { lastAttempt: null, lastSuccess: null }, defer: null };
    const scoped = r.scope === 'own' ? node.own : (node.defer ??= { lastAttempt: null, lastSuccess: null });
    const fact = buildFactOf(r);
    if (r.is_attempt === true) scoped.lastAttempt = fact;
    if (r.is_success === true) scoped.lastSuccess = fact;
    byId.set(id, node);
  }
  return byId;
}

function buildFactOf(r: Record<string, unknown>): BuildFact {
  const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  return {
    invocationId: String(r.invocation_id),
    branch: str(r.branch),
    status: String(r.status),
    finishedAtUs: micros(r.finished_us),
    fingerprint: str(r.fingerprint),
    checksum: str(r.checksum),
    configKey: str(r.config_key),
    catalog: catalogOf(r),
  };
}

/** Fingerprints of ephemeral models in every manifest that has them: what their children compiled. */
export async function readEphemeralFingerprints(connection: DuckDBConnection, ids: string[]): Promise<Map<string, string | null>> {
  const found = new Map<string, string | null>();
  if (ids.length === 0) return found;
  const result = plainResult(
    await connection.runAndReadAll(
      `SELECT invocation_id, unique_id, fingerprint FROM node_invocation WHERE unique_id IN (SELECT unnest(from_json($1, '["VARCHAR"]')))`,
      [JSON.stringify(ids)],
    ),
  );
  for (const r of result.rows) found.set(`${String(r.invocation_id)} ${String(r.unique_id)}`, typeof r.fingerprint === 'string' ? r.fingerprint : null);
  return found;
}

/**
 * What of a node version, besides its code, decides how it builds: materialization, config as
 * compared between manifests (node_change_aspects, without what a dbt release writes on its
 * own), contract, and where it lands. The same for the planned node and for its past builds, so
 * that a fingerprint that moved with the same checksum and the same key was moved by macros.
 */
export function configKey(v: string): string {
  return `md5(concat_ws('|', ${v}.materialization, ${v}.unrendered_config_compared::VARCHAR, compared_contract(${v}.contract)::VARCHAR, json_extract(${v}.unrendered_config, '$.database')::VARCHAR, json_extract(${v}.unrendered_config, '$.schema')::VARCHAR, json_extract(${v}.unrendered_config, '$.alias')::VARCHAR))`;
}

export const micros = (value: unknown): number | null => (value === null || value === undefined || value === '' ? null : Number(value));

/** The catalog snapshot recorded for an invocation (iceberg-rest also records each table's). */
export function catalogOf(row: Record<string, unknown>): CatalogFact | null {
  if (row.catalog_provider === null || row.catalog_provider === undefined) return null;
  const detail = row.catalog_detail && typeof row.catalog_detail === 'object' ? (row.catalog_detail as Record<string, unknown>) : {};
  const perTable = detail.perTable && typeof detail.perTable === 'object' ? (detail.perTable as Record<string, string | null>) : null;
  const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  return { status: str(row.catalog_status), snapshotId: str(row.catalog_snapshot_id), atomic: row.catalog_atomic === true, perTable };
}
