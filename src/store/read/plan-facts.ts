import type { DuckDBConnection } from '@duckdb/node-api';
import { AtticError } from '../../errors.js';
import { noManifestToPlan } from './manifest-beside.js';
import { plainResult } from '../db/plain-rows.js';
import { catalogOf, configKey, micros, readBuildFacts, readEphemeralFingerprints, type CatalogFact, type NodeBuilds } from './plan-builds.js';

/**
 * What the store knows that `plan` decides on, read in a few set-wise queries so that a
 * project of 10,000 nodes over hundreds of runs is read in well under a second. Times are
 * microseconds since the epoch (dbt writes microseconds; a millisecond would make two close
 * builds look simultaneous), null when unknown. A plan sees the history as it stood when the
 * planned manifest was written: later runs, checks and manifests are left out, so a past
 * plan can be made again and gives the same verdicts.
 */
export type { BuildFact, CatalogFact, NodeBuilds, ScopedBuilds } from './plan-builds.js';

export interface BuildAfter {
  count: number | null;
  period: string | null;
  updatesOn: string | null;
}

export interface CurrentNode {
  uniqueId: string;
  resourceType: string;
  name: string;
  packageName: string | null;
  path: string | null;
  tags: string[];
  fqn: string[];
  materialization: string | null;
  fingerprint: string | null;
  checksum: string | null;
  /** A hash of the build config, relation and contract as compared (src/extract/compared-config.ts), so a
   *  dbt release rewriting them is no config change: tells a config change from a code change. */
  configKey: string | null;
  buildAfter: BuildAfter | null;
  /** depends_on.nodes: models, seeds, snapshots and sources it reads (tests: what they test). */
  parents: string[];
  /** A source's table as the catalog names it: database.schema.identifier. */
  tableKey: string | null;
}

export interface FreshnessCheck {
  takenAtUs: number | null;
  maxLoadedAtUs: number | null;
  invocationId: string;
}

export interface PlanScope {
  /** The invocation whose manifest is planned. */
  invocationId: string;
  /** undefined: the planned invocation's own target, else (a parse records none) the newest build's on the branch. */
  target?: string | null;
  /** null: every branch; undefined: the planned invocation's own branch. */
  branch?: string | null;
  deferTo: string | null;
}

/** The results the planned invocation itself wrote, when its command built or tested nodes. */
export interface OwnRun {
  command: string | null;
  results: number;
}

export interface PlanFacts {
  invocationId: string;
  generatedAtUs: number | null;
  /** Set when the planned manifest is a finished build's own: its nodes already ran. */
  ownRun: OwnRun | null;
  target: string | null;
  branch: string | null;
  catalog: CatalogFact | null;
  nodes: CurrentNode[];
  /** unique_ids some other manifest in the store listed. */
  seenBefore: Set<string>;
  builds: Map<string, NodeBuilds>;
  freshness: Map<string, FreshnessCheck[]>;
  /** `${invocation_id} ${unique_id}` → fingerprint, for ephemeral models (compiled into their children). */
  ephemeralAt: Map<string, string | null>;
}

type Row = Record<string, unknown>;

async function rows(connection: DuckDBConnection, sql: string, params: (string | null)[]): Promise<Row[]> {
  return plainResult(await connection.runAndReadAll(sql, params as string[])).rows;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export async function readPlanFacts(connection: DuckDBConnection, scope: PlanScope): Promise<PlanFacts> {
  const current = (
    await rows(
      connection,
      `SELECT target, branch, epoch_us(generated_at) AS at_us, command, result_count, command_builds(command) AS builds, catalog_provider, catalog_status, catalog_snapshot_id, catalog_atomic, catalog_detail FROM invocation WHERE invocation_id = $1`,
      [scope.invocationId],
    )
  )[0];
  if (!current) throw new AtticError('not-found', `No invocation ${scope.invocationId} in the store.`);
  const branch = scope.branch === undefined ? text(current.branch) : scope.branch;
  const asOfUs = micros(current.at_us);
  const newestTarget = async (on: string | null): Promise<string | null> => newestBuildTarget(connection, scope.invocationId, on, asOfUs);
  const target =
    scope.target !== undefined
      ? scope.target
      : (text(current.target) ?? (await newestTarget(branch)) ?? (scope.deferTo ? await newestTarget(scope.deferTo) : null));
  const nodes = await readCurrentNodes(connection, scope.invocationId);
  if (nodes.length === 0) throw new AtticError('not-found', await noManifestToPlan(connection, scope.invocationId));
  const ephemeral = nodes.filter((n) => n.materialization === 'ephemeral').map((n) => n.uniqueId);
  return {
    invocationId: scope.invocationId,
    generatedAtUs: asOfUs,
    ownRun: current.builds === true && Number(current.result_count ?? 0) > 0 ? { command: text(current.command), results: Number(current.result_count) } : null,
    target,
    branch,
    catalog: catalogOf(current),
    nodes,
    seenBefore: await readSeenBefore(connection, scope.invocationId, asOfUs),
    builds: await readBuildFacts(connection, { ...scope, target, branch, asOfUs }),
    freshness: await readFreshness(
      connection,
      nodes.filter((n) => n.resourceType === 'source').map((n) => n.uniqueId),
      asOfUs,
    ),
    ephemeralAt: await readEphemeralFingerprints(connection, ephemeral),
  };
}

/**
 * dbt records a target only in run_results, so a `dbt parse` has none: it ran against the
 * profile's default target, which is the one the newest build on the branch used (null when
 * that build named none either).
 */
async function newestBuildTarget(connection: DuckDBConnection, invocationId: string, branch: string | null, asOfUs: number | null): Promise<string | null> {
  const found = await rows(
    connection,
    `SELECT target FROM invocation
     WHERE invocation_id <> $1 AND result_count > 0 AND ($2::VARCHAR IS NULL OR branch = $2)
       AND ($3::BIGINT IS NULL OR epoch_us(coalesce(completed_at, generated_at)) <= $3)
       AND command_builds(command)
     ORDER BY coalesce(completed_at, generated_at) DESC, run_id DESC LIMIT 1`,
    [invocationId, branch, asOfUs === null ? null : String(asOfUs)],
  );
  return found[0] ? text(found[0].target) : null;
}

async function readCurrentNodes(connection: DuckDBConnection, invocationId: string): Promise<CurrentNode[]> {
  const found = await rows(
    connection,
    `SELECT nv.unique_id, nv.resource_type, nv.name, nv.package_name, nv.path, nv.tags, nv.fqn, nv.materialization, ni.fingerprint, nv.checksum,
            ${configKey('nv')} AS config_key,
            json_extract(nv.config, '$.freshness.build_after') AS build_after,
            concat_ws('.', nv.database_name, nv.schema_name, nv.identifier) AS table_key
     FROM node_invocation ni JOIN node_version nv ON nv.node_version_id = ni.node_version_id
     WHERE ni.invocation_id = $1 AND NOT nv.disabled
     ORDER BY nv.unique_id`,
    [invocationId],
  );
  const edges = await rows(
    connection,
    `SELECT unique_id, list(depends_on_id ORDER BY depends_on_id) AS parents FROM node_depends_on WHERE invocation_id = $1 AND kind = 'node' GROUP BY unique_id`,
    [invocationId],
  );
  const parentsOf = new Map(edges.map((e) => [String(e.unique_id), Array.isArray(e.parents) ? e.parents.map(String) : []]));
  return found.map((r) => ({
    uniqueId: String(r.unique_id),
    resourceType: String(r.resource_type),
    name: text(r.name) ?? String(r.unique_id),
    packageName: text(r.package_name),
    path: text(r.path),
    tags: Array.isArray(r.tags) ? r.tags.map(String) : [],
    fqn: Array.isArray(r.fqn) ? r.fqn.map(String) : [],
    materialization: text(r.materialization),
    fingerprint: text(r.fingerprint),
    checksum: text(r.checksum),
    configKey: text(r.config_key),
    buildAfter: buildAfterOf(r.build_after),
    parents: parentsOf.get(String(r.unique_id)) ?? [],
    tableKey: r.resource_type === 'source' ? text(r.table_key) : null,
  }));
}

function buildAfterOf(value: unknown): BuildAfter | null {
  const parsed = typeof value === 'string' ? safeParse(value) : value;
  if (!parsed || typeof parsed !== 'object') return null;
  const b = parsed as Record<string, unknown>;
  return { count: typeof b.count === 'number' ? b.count : null, period: text(b.period), updatesOn: text(b.updates_on) };
}

function safeParse(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return null;
  }
}

async function readSeenBefore(connection: DuckDBConnection, invocationId: string, asOfUs: number | null): Promise<Set<string>> {
  const found = await rows(
    connection,
    // Through the shared node versions: distinct versions are few, node_invocation rows many.
    `SELECT DISTINCT nv.unique_id FROM node_version nv
     WHERE nv.node_version_id IN (
       SELECT node_version_id FROM node_invocation WHERE invocation_id IN (
         SELECT invocation_id FROM invocation WHERE invocation_id <> $1 AND ($2::BIGINT IS NULL OR epoch_us(generated_at) <= $2)))`,
    [invocationId, asOfUs === null ? null : String(asOfUs)],
  );
  return new Set(found.map((r) => String(r.unique_id)));
}

/**
 * Every freshness check of the project's sources, from sources.json (and whatever else fills
 * source_freshness). Not limited to the target: sources are the warehouse's raw data, which
 * every target reads. A check is dated when it looked (snapshotted_at), else when its
 * invocation ended.
 */
async function readFreshness(connection: DuckDBConnection, sourceIds: string[], asOfUs: number | null): Promise<Map<string, FreshnessCheck[]>> {
  const byId = new Map<string, FreshnessCheck[]>();
  if (sourceIds.length === 0) return byId;
  const found = await rows(
    connection,
    `SELECT f.unique_id, f.invocation_id, epoch_us(f.max_loaded_at) AS loaded_us,
            epoch_us(coalesce(f.snapshotted_at, i.completed_at, i.generated_at)) AS taken_us
     FROM source_freshness f JOIN invocation i USING (invocation_id)
     WHERE f.unique_id IN (SELECT unnest(from_json($1, '["VARCHAR"]')))
       AND ($2::BIGINT IS NULL OR epoch_us(coalesce(f.snapshotted_at, i.completed_at, i.generated_at)) <= $2)`,
    [JSON.stringify(sourceIds), asOfUs === null ? null : String(asOfUs)],
  );
  for (const r of found) {
    const checks = byId.get(String(r.unique_id)) ?? [];
    checks.push({ invocationId: String(r.invocation_id), takenAtUs: micros(r.taken_us), maxLoadedAtUs: micros(r.loaded_us) });
    byId.set(String(r.unique_id), checks);
  }
  return byId;
}
