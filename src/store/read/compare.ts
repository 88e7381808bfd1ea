import type { DuckDBConnection } from '@duckdb/node-api';
import { AtticError } from '../../errors.js';
import { parseTimeArgument, resolvePrefix, spanLastIso, uniquePrefixes } from '../../vocab/index.js';
import { COMPARED_VERSION_COLUMNS } from '../derived/node-changes.js';
import { completedExecution } from '../derived/node-runtime.js';
import { plainResult } from '../db/plain-rows.js';

/**
 * Comparing two invocations: their nodes (by the shared change rule, node_change_aspects in
 * schema/002-macros.sql), results, runtimes, code and data. Used by `inspect` (against the
 * previous run on the same branch and target) and `diff` (any two).
 */
export type Row = Record<string, unknown>;

async function rows(connection: DuckDBConnection, sql: string, params: (string | number)[] = []): Promise<Row[]> {
  return plainResult(await connection.runAndReadAll(sql, params)).rows;
}

/** How a reference is named: `baseOf` gives the run a branch made with `branch create` starts at. */
export interface InvocationRef {
  id?: string;
  at?: string;
  baseOf?: (branch: string) => Promise<string | null>;
}

/**
 * An id, a unique prefix, `@branch` (its latest invocation; for a new branch with none of its
 * own yet, the run it was created from), or `--at` a time (the latest before it).
 */
export async function resolveInvocationRef(connection: DuckDBConnection, ref: InvocationRef): Promise<string> {
  if (ref.at !== undefined) return latestBefore(connection, ref.at);
  const id = ref.id ?? '';
  if (id.startsWith('@')) return (await latestOnBranch(connection, id.slice(1))) ?? (await ref.baseOf?.(id.slice(1))) ?? noneOnBranch(id.slice(1));
  return resolvePrefix(id, await invocationIds(connection), 'invocation');
}

export async function invocationIds(connection: DuckDBConnection): Promise<string[]> {
  return (await rows(connection, 'SELECT invocation_id FROM invocation')).map((r) => String(r.invocation_id));
}

/** Prints each invocation id as its shortest unique prefix among the store's (as git does). */
export async function invocationAbbreviator(connection: DuckDBConnection): Promise<(id: string) => string> {
  return uniquePrefixes(await invocationIds(connection));
}

async function latestOnBranch(connection: DuckDBConnection, branch: string): Promise<string | null> {
  const found = await rows(connection, `SELECT invocation_id FROM invocation WHERE branch = $1 ORDER BY ${WHEN} DESC NULLS LAST, run_id DESC LIMIT 1`, [
    branch,
  ]);
  return found[0] ? String(found[0].invocation_id) : null;
}

function noneOnBranch(branch: string): never {
  throw new AtticError('not-found', `No invocation on branch '${branch}'. See dbtattic branch list.`);
}

async function latestBefore(connection: DuckDBConnection, at: string): Promise<string> {
  // Parsed here, not by DuckDB's cast, which refuses `12:00Z` and dates alone; a date means its whole day.
  const last = spanLastIso(parseTimeArgument(at));
  const found = await rows(connection, `SELECT invocation_id FROM invocation WHERE ${WHEN} <= $1::TIMESTAMPTZ ORDER BY ${WHEN} DESC, run_id DESC LIMIT 1`, [
    last,
  ]);
  if (!found[0]) throw new AtticError('not-found', `No invocation at or before ${at}.`);
  return String(found[0].invocation_id);
}

const WHEN = 'coalesce(completed_at, generated_at)';

export async function readInvocation(connection: DuckDBConnection, id: string): Promise<Row> {
  const found = await rows(connection, 'SELECT * FROM invocation WHERE invocation_id = $1', [id]);
  if (!found[0]) throw new AtticError('not-found', `No invocation ${id} in the store.`);
  return found[0];
}

/**
 * The run before `id` on the same branch and target that has a manifest to compare with. A run
 * whose target is unknown (`dbt parse` writes no run_results) compares with the branch's
 * previous run of any target, rather than with nothing.
 */
export async function previousInvocation(connection: DuckDBConnection, id: string): Promise<string | null> {
  return manifestOnLine(connection, id, false);
}

/**
 * The invocation whose manifest stands for `id`'s code when `id` has none (a run whose manifest
 * was never archived, a catalog-only invocation): `id` itself if it has one, else the latest
 * before it on its branch and target that does. Used only when asked (`--nearest`).
 */
export async function nearestWithManifest(connection: DuckDBConnection, id: string): Promise<string | null> {
  return manifestOnLine(connection, id, true);
}

async function manifestOnLine(connection: DuckDBConnection, id: string, includeSelf: boolean): Promise<string | null> {
  const found = await rows(
    connection,
    `SELECT p.invocation_id FROM invocation p, invocation c
     WHERE c.invocation_id = $1 AND (p.invocation_id <> c.invocation_id OR $2 = 1)
       AND p.branch IS NOT DISTINCT FROM c.branch AND (c.target IS NULL OR p.target = c.target)
       AND (coalesce(p.completed_at, p.generated_at) < coalesce(c.completed_at, c.generated_at) OR p.invocation_id = c.invocation_id)
       AND p.invocation_id IN (SELECT invocation_id FROM invocation_node_block)
     ORDER BY p.invocation_id = c.invocation_id DESC, coalesce(p.completed_at, p.generated_at) DESC, p.run_id DESC LIMIT 1`,
    [id, includeSelf ? 1 : 0],
  );
  return found[0] ? String(found[0].invocation_id) : null;
}

/** What an invocation lacks for a comparison: no manifest (nodes, macros), no run results (statuses, runtimes). */
export async function artifactsOf(connection: DuckDBConnection, id: string): Promise<string[]> {
  const found = await rows(connection, 'SELECT DISTINCT artifact_type FROM artifact_capture WHERE invocation_id = $1 ORDER BY 1', [id]);
  return found.map((r) => String(r.artifact_type));
}

/**
 * Nodes added, removed and changed from `a` to `b`, classified by the same macros as
 * v_node_changes (compiled SQL: the files under target/compiled, when both runs compiled the
 * node). Empty when either invocation has no manifest.
 *
 * Only the nodes that may have changed are classified: added or removed, another version or
 * fingerprint, a called macro or the compiled SQL changed, or (for the default quoting) another
 * adapter; any other node has no aspect. Classifying all 10,000 nodes of a large project, each
 * with its whole node_version row and a per-node macro subquery, was most of inspect's time
 * (1.2-2.5 s, against 0.17-0.3 s so).
 *
 * The two runs' nodes are read in one pass over the blocks either holds. A block both hold has
 * the same rows in both (its id is their hash), so a node found only in shared blocks differs
 * in nothing but the macros it calls, its compiled SQL or the adapter; the rest of the blocks
 * (about 1 % of them between consecutive runs) name the nodes to compare. Reading each run's
 * nodes and macro calls apart scanned node_block four times: 150 of 290 ms at 10,000 nodes x
 * 200 runs.
 */
export async function compareNodes(connection: DuckDBConnection, a: string, b: string): Promise<Row[]> {
  const classified = await rows(
    connection,
    `WITH ia AS (SELECT adapter_type, dbt_version FROM invocation WHERE invocation_id = $1),
          ib AS (SELECT adapter_type, dbt_version FROM invocation WHERE invocation_id = $2),
          held AS MATERIALIZED (
            SELECT block_id, bool_or(side = 'a') AS in_a, bool_or(side = 'b') AS in_b
            FROM (SELECT block_id, 'a' AS side FROM invocation_node_block WHERE invocation_id = $1
                  UNION ALL SELECT block_id, 'b' FROM invocation_node_block WHERE invocation_id = $2)
            GROUP BY block_id),
          entry AS MATERIALIZED (
            -- a semi join first: joined to held directly, DuckDB hashes all of node_block (v_latest_edges says why)
            SELECT h.in_a, h.in_b, n.unique_id, n.node_version_id, n.fingerprint, n.macro_set_id
            FROM (SELECT * FROM node_block WHERE block_id IN (SELECT block_id FROM held)) AS n
            JOIN held AS h ON h.block_id = n.block_id),
          changed_macro AS (
            -- macros in both manifests whose SQL differs: the SQL, not the version, since a dbt upgrade
            -- reshapes every macro entry without changing what a node runs (node_change's rule too)
            SELECT mt.unique_id AS macro_id
            FROM macro_invocation AS mf
            JOIN macro_invocation AS mt ON mt.invocation_id = $2 AND mt.unique_id = mf.unique_id
            JOIN macro_version AS vf ON vf.macro_version_id = mf.macro_version_id
            JOIN macro_version AS vt ON vt.macro_version_id = mt.macro_version_id
            WHERE mf.invocation_id = $1 AND mf.macro_version_id <> mt.macro_version_id AND vf.macro_sql IS DISTINCT FROM vt.macro_sql),
          macro_call AS (
            SELECT e.in_a, e.in_b, e.unique_id, m.depends_on_id
            FROM entry AS e JOIN macro_set AS m ON m.macro_set_id = e.macro_set_id
            WHERE m.depends_on_id IN (SELECT macro_id FROM changed_macro)),
          called AS (
            -- ... that the node calls directly in both manifests
            SELECT now.unique_id, list(DISTINCT now.depends_on_id ORDER BY now.depends_on_id) AS changed_macros
            FROM macro_call AS now
            JOIN macro_call AS was ON was.in_a AND was.unique_id = now.unique_id AND was.depends_on_id = now.depends_on_id
            WHERE now.in_b
            GROUP BY now.unique_id),
          compiled_changed AS (
            SELECT ca.unique_id FROM node_sql AS ca
            JOIN node_sql AS cb ON cb.invocation_id = $2 AND cb.kind = 'compiled' AND cb.unique_id = ca.unique_id
            WHERE ca.invocation_id = $1 AND ca.kind = 'compiled' AND len(compiled_sql_aspect(ca.object_id, cb.object_id)) > 0),
          candidate AS (
            SELECT unique_id FROM entry WHERE NOT (in_a AND in_b)
            UNION SELECT unique_id FROM called
            UNION SELECT unique_id FROM compiled_changed
            UNION SELECT unique_id FROM entry WHERE (SELECT adapter_type FROM ia) IS DISTINCT FROM (SELECT adapter_type FROM ib)),
          a AS (${CANDIDATE_ENTRIES.replace('$side', 'in_a')}),
          b AS (${CANDIDATE_ENTRIES.replace('$side', 'in_b')}),
          paired AS (
            SELECT coalesce(b.unique_id, a.unique_id) AS unique_id, coalesce(b.resource_type, a.resource_type) AS resource_type,
                   a.node_version_id AS from_version, b.node_version_id AS to_version, a.fingerprint AS from_fp, b.fingerprint AS to_fp,
                   c.changed_macros, compiled_sql_aspect(ca.object_id, cb.object_id) AS compiled_aspect
            FROM a FULL JOIN b ON a.unique_id = b.unique_id
            LEFT JOIN called AS c ON c.unique_id = b.unique_id
            LEFT JOIN node_sql AS ca ON ca.invocation_id = $1 AND ca.unique_id = a.unique_id AND ca.kind = 'compiled'
            LEFT JOIN node_sql AS cb ON cb.invocation_id = $2 AND cb.unique_id = b.unique_id AND cb.kind = 'compiled'
            WHERE a.unique_id IS NULL OR b.unique_id IS NULL OR a.node_version_id <> b.node_version_id OR a.fingerprint IS DISTINCT FROM b.fingerprint
               OR c.changed_macros IS NOT NULL OR len(compiled_sql_aspect(ca.object_id, cb.object_id)) > 0
               OR (SELECT adapter_type FROM ia) IS DISTINCT FROM (SELECT adapter_type FROM ib)),
          version AS (
            SELECT ${COMPARED_VERSION_COLUMNS} FROM node_version
            WHERE node_version_id IN (SELECT from_version FROM paired UNION SELECT to_version FROM paired)),
          classified AS MATERIALIZED (
            -- materialized, and nodes without aspects dropped by the caller: tested in SQL, the
            -- aspects were computed twice (40 of 250 ms at 10,000 nodes x 200 runs)
            SELECT p.unique_id, p.resource_type,
                   CASE WHEN p.from_version IS NULL THEN ['added'] WHEN p.to_version IS NULL THEN ['removed']
                        ELSE change_aspects_or_other(
                               list_concat(node_change_aspects(f, t, p.from_fp, p.to_fp, p.changed_macros, ia.adapter_type, ib.adapter_type), p.compiled_aspect),
                               p.from_version, p.to_version, ia.dbt_version, ib.dbt_version, p.unique_id) END AS aspects,
                   p.from_fp IS NOT NULL AND p.to_fp IS NOT NULL AS fingerprints_known
            FROM paired AS p
            LEFT JOIN version AS f ON f.node_version_id = p.from_version
            LEFT JOIN version AS t ON t.node_version_id = p.to_version
            CROSS JOIN ia CROSS JOIN ib)
     SELECT unique_id, resource_type,
            CASE WHEN aspects[1] IN ('added', 'removed') THEN aspects[1] ELSE node_change_kind(aspects, resource_type, fingerprints_known) END AS change,
            aspects
     FROM classified
     WHERE EXISTS (SELECT 1 FROM entry WHERE in_a) AND EXISTS (SELECT 1 FROM entry WHERE in_b)
     ORDER BY change, unique_id`,
    [a, b],
  );
  return classified.filter((row) => Array.isArray(row.aspects) && row.aspects.length > 0);
}

/** One run's enabled nodes among the candidates (disabled entries count as absent). */
const CANDIDATE_ENTRIES = `
  SELECT e.unique_id, e.node_version_id, e.fingerprint, nv.resource_type
  FROM (SELECT * FROM entry WHERE $side AND unique_id IN (SELECT unique_id FROM candidate)) AS e
  JOIN node_version AS nv ON nv.node_version_id = e.node_version_id AND NOT nv.disabled`;

/** Nodes whose result status differs between the two runs (both ran them). */
export async function compareStatuses(connection: DuckDBConnection, a: string, b: string): Promise<Row[]> {
  return rows(
    connection,
    `SELECT b.unique_id, a.status AS from_status, b.status AS to_status
     FROM run_result a JOIN run_result b ON a.unique_id = b.unique_id
     WHERE a.invocation_id = $1 AND b.invocation_id = $2 AND a.status IS DISTINCT FROM b.status ORDER BY b.unique_id`,
    [a, b],
  );
}

/** The largest runtime changes among nodes both runs completed (a skip's 0 s is no runtime), biggest first. */
export async function compareRuntimes(connection: DuckDBConnection, a: string, b: string, limit = 10): Promise<Row[]> {
  return rows(
    connection,
    `SELECT b.unique_id, round(a.execution_time, 3) AS from_s, round(b.execution_time, 3) AS to_s,
            round(b.execution_time - a.execution_time, 3) AS delta_s,
            CASE WHEN a.execution_time > 0 THEN round(b.execution_time / a.execution_time, 2) END AS ratio
     FROM run_result a JOIN run_result b ON a.unique_id = b.unique_id
     WHERE a.invocation_id = $1 AND b.invocation_id = $2 AND ${completedExecution('a')} AND ${completedExecution('b')}
     ORDER BY abs(b.execution_time - a.execution_time) DESC, b.unique_id LIMIT $3`,
    [a, b, limit],
  );
}
/**
 * Macros added, removed and changed from `a` to `b`: `code` when the SQL differs, `docs` when
 * only the description does, `other` for the rest (path, arguments, meta). Empty when either
 * invocation has no manifest.
 */
export async function compareMacros(connection: DuckDBConnection, a: string, b: string): Promise<Row[]> {
  return rows(
    connection,
    `WITH a AS (SELECT mi.unique_id, mv.macro_version_id, mv.package_name, mv.macro_sql, mv.description
                FROM macro_invocation mi JOIN macro_version mv ON mv.macro_version_id = mi.macro_version_id WHERE mi.invocation_id = $1),
          b AS (SELECT mi.unique_id, mv.macro_version_id, mv.package_name, mv.macro_sql, mv.description
                FROM macro_invocation mi JOIN macro_version mv ON mv.macro_version_id = mi.macro_version_id WHERE mi.invocation_id = $2)
     SELECT coalesce(b.unique_id, a.unique_id) AS unique_id, coalesce(b.package_name, a.package_name) AS package_name,
            CASE WHEN a.unique_id IS NULL THEN 'added' WHEN b.unique_id IS NULL THEN 'removed'
                 WHEN a.macro_sql IS DISTINCT FROM b.macro_sql THEN 'code'
                 WHEN a.description IS DISTINCT FROM b.description THEN 'docs' ELSE 'other' END AS change
     FROM a FULL JOIN b ON a.unique_id = b.unique_id
     WHERE a.macro_version_id IS DISTINCT FROM b.macro_version_id
       AND $1 IN (SELECT invocation_id FROM macro_invocation) AND $2 IN (SELECT invocation_id FROM macro_invocation)
     ORDER BY change, unique_id`,
    [a, b],
  );
}
