import type { DuckDBConnection } from '@duckdb/node-api';
import {
  artifactsOf,
  compareMacros,
  compareNodes,
  compareRuntimes,
  compareStatuses,
  invocationAbbreviator,
  nearestWithManifest,
  previousInvocation,
  readInvocation,
  type Row,
} from './compare.js';
import { plainResult } from '../db/plain-rows.js';

/**
 * Everything one command needs to explain a run, or what changed between two: the triplet
 * (code: git and the code fingerprint; data: the catalog snapshot; run: dbt's invocation id
 * and our run id) and the differences.
 */
export interface Triplet {
  run: { invocation_id: unknown; run_id: unknown };
  code: {
    git_sha: unknown;
    git_branch: unknown;
    git_dirty: unknown;
    git_diff_hash: unknown;
    git_remote: unknown;
    git_source: unknown;
    code_fingerprint: unknown;
    context_taken: unknown;
  };
  data: { catalog_provider: unknown; catalog_status: unknown; catalog_snapshot_id: unknown; catalog_atomic: unknown; catalog_detail: unknown };
}

export interface Changes {
  from: string;
  to: string;
  same_code: boolean | null;
  git: { from: unknown; to: unknown; range: string | null };
  catalog: { from: unknown; to: unknown; changed: boolean | null };
  /** The invocations whose manifests were compared: `from` and `to`, or with `--nearest` the nearest that have one. */
  manifests: { from: string | null; to: string | null };
  /** null when unknown: a side has no manifest (the reason is in `unknown.nodes`). */
  nodes: Row[] | null;
  node_counts: Record<string, number>;
  /** Macros added, removed or changed (`code`, `docs`, `other`): a changed macro changes every model that calls it. */
  macros: Row[] | null;
  macro_counts: Record<string, number>;
  /** null when unknown: a side has no run results (the reason is in `unknown.statuses`). */
  statuses: Row[] | null;
  runtimes: Row[] | null;
  /** Why a part could not be compared; empty when everything was. */
  unknown: { nodes?: string; statuses?: string };
}

export interface InspectReport {
  invocation: Row;
  /** The run's own failures (error, fail, runtime error, partial success): node, status, message. */
  failures: Row[];
  triplet: Triplet;
  previous: string | null;
  changes: Changes | null;
}

/** `nearest`: a side without a manifest is compared through the nearest earlier invocation that has one. */
export interface CompareOptions {
  nearest?: boolean;
}

export function tripletOf(row: Row): Triplet {
  return {
    run: { invocation_id: row.invocation_id, run_id: row.run_id },
    code: {
      git_sha: row.git_sha,
      git_branch: row.git_branch,
      git_dirty: row.git_dirty,
      git_diff_hash: row.git_diff_hash,
      git_remote: row.git_remote,
      git_source: row.git_source,
      code_fingerprint: row.code_fingerprint,
      context_taken: row.context_taken,
    },
    data: {
      catalog_provider: row.catalog_provider,
      catalog_status: row.catalog_status,
      catalog_snapshot_id: row.catalog_snapshot_id,
      catalog_atomic: row.catalog_atomic,
      catalog_detail: row.catalog_detail,
    },
  };
}

export async function inspectInvocation(connection: DuckDBConnection, id: string, options: CompareOptions = {}): Promise<InspectReport> {
  const invocation = await readInvocation(connection, id);
  const previous = await previousInvocation(connection, id);
  return {
    invocation,
    failures: await runFailures(connection, id),
    triplet: tripletOf(invocation),
    previous,
    changes: previous ? await diffInvocations(connection, previous, id, options, invocation) : null,
  };
}

export async function diffInvocations(connection: DuckDBConnection, a: string, b: string, options: CompareOptions = {}, bRow?: Row): Promise<Changes> {
  const [from, to] = await Promise.all([readInvocation(connection, a), bRow ?? readInvocation(connection, b)]);
  const manifests = await manifestSides(connection, a, b, options);
  const nodesKnown = manifests.from !== null && manifests.to !== null;
  const nodes = nodesKnown ? await compareNodes(connection, manifests.from!, manifests.to!) : null;
  const macros = nodesKnown ? await compareMacros(connection, manifests.from!, manifests.to!) : null;
  const resultsMissing = await withoutRunResults(connection, [a, b]);
  const unknown: Changes['unknown'] = {};
  if (!nodesKnown) unknown.nodes = await noManifestReason(connection, manifests.from === null ? a : b, options);
  if (resultsMissing)
    unknown.statuses = `${(await invocationAbbreviator(connection))(resultsMissing)} has no run results (${(await artifactsOf(connection, resultsMissing)).join(', ') || 'nothing'} archived)`;
  return {
    from: a,
    to: b,
    same_code: from.code_fingerprint && to.code_fingerprint ? from.code_fingerprint === to.code_fingerprint : null,
    git: { from: from.git_sha, to: to.git_sha, range: from.git_sha && to.git_sha && from.git_sha !== to.git_sha ? `${from.git_sha}..${to.git_sha}` : null },
    catalog: {
      from: from.catalog_snapshot_id,
      to: to.catalog_snapshot_id,
      changed: from.catalog_snapshot_id && to.catalog_snapshot_id ? from.catalog_snapshot_id !== to.catalog_snapshot_id : null,
    },
    manifests,
    nodes,
    node_counts: countBy(nodes ?? [], 'change'),
    macros,
    macro_counts: countBy(macros ?? [], 'change'),
    statuses: resultsMissing ? null : await compareStatuses(connection, a, b),
    runtimes: resultsMissing ? null : await compareRuntimes(connection, a, b),
    unknown,
  };
}

/** The first of `ids` that has no run_results.json archived: its results cannot be compared. */
async function withoutRunResults(connection: DuckDBConnection, ids: string[]): Promise<string | undefined> {
  for (const id of ids) if (!(await artifactsOf(connection, id)).includes('run_results')) return id;
  return undefined;
}

/** Each side's own manifest; with `nearest`, a side without one stands in through its nearest earlier one. */
async function manifestSides(connection: DuckDBConnection, a: string, b: string, options: CompareOptions): Promise<Changes['manifests']> {
  const side = async (id: string): Promise<string | null> =>
    options.nearest ? nearestWithManifest(connection, id) : (await hasManifest(connection, id)) ? id : null;
  return { from: await side(a), to: await side(b) };
}

async function hasManifest(connection: DuckDBConnection, id: string): Promise<boolean> {
  return (await nearestWithManifest(connection, id)) === id;
}

/** Says which invocation has no manifest, what it has instead, and how to compare anyway. */
async function noManifestReason(connection: DuckDBConnection, id: string, options: CompareOptions): Promise<string> {
  const artifacts = await artifactsOf(connection, id);
  const has = artifacts.length > 0 ? `only ${artifacts.join(', ')} archived` : 'no artifact archived';
  const manifestFiled = artifacts.includes('manifest');
  const why = manifestFiled ? 'its manifest could not be read (see ingest_problem)' : `its manifest was never archived (${has})`;
  const short = (await invocationAbbreviator(connection))(id);
  return options.nearest
    ? `${short} has no manifest and no earlier run on its branch and target has one: ${why}`
    : `${short} has no manifest: ${why}; --nearest compares with the nearest earlier run that has one`;
}

/** The results of the run that did not succeed, as dbt wrote them. */
async function runFailures(connection: DuckDBConnection, id: string): Promise<Row[]> {
  return plainResult(
    await connection.runAndReadAll(
      `SELECT unique_id, status, message FROM run_result
     WHERE invocation_id = $1 AND status IN ('error', 'fail', 'runtime error', 'partial success')
     ORDER BY CASE status WHEN 'error' THEN 0 WHEN 'runtime error' THEN 0 WHEN 'fail' THEN 1 ELSE 2 END, unique_id`,
      [id],
    ),
  ).rows;
}

function countBy(rows: Row[], key: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const row of rows) counts[String(row[key])] = (counts[String(row[key])] ?? 0) + 1;
  return counts;
}
