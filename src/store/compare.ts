import type { DuckDBConnection } from '@duckdb/node-api';
import { AtticError } from '../errors.js';
import { resolvePrefix, uniquePrefixes } from '../vocab/index.js';
import { plainResult } from './plain-rows.js';

/**
 * Comparing two invocations: their nodes (by the shared change rule, node_change_aspects in
 * schema/002-macros.sql), results, runtimes, code and data. Used by `inspect` (against the
 * previous run on the same branch and target) and `diff` (any two).
 */
export type Row = Record<string, unknown>;

async function rows(connection: DuckDBConnection, sql: string, params: (string | number)[] = []): Promise<Row[]> {
  return plainResult(await connection.runAndReadAll(sql, params)).rows;
}

/** An id, a unique prefix, `@branch` (its latest invocation), or `--at` a time (the latest before it). */
export async function resolveInvocationRef(connection: DuckDBConnection, ref: { id?: string; at?: string }): Promise<string> {
  if (ref.at !== undefined) return latestBefore(connection, ref.at);
  const id = ref.id ?? '';
  if (id.startsWith('@')) return latestOnBranch(connection, id.slice(1));
  return resolvePrefix(id, await invocationIds(connection), 'invocation');
}

export async function invocationIds(connection: DuckDBConnection): Promise<string[]> {
  return (await rows(connection, 'SELECT invocation_id FROM invocation')).map((r) => String(r.invocation_id));
}

/** Prints each invocation id as its shortest unique prefix among the store's (as git does). */
export async function invocationAbbreviator(connection: DuckDBConnection): Promise<(id: string) => string> {
  return uniquePrefixes(await invocationIds(connection));
}

async function latestOnBranch(connection: DuckDBConnection, branch: string): Promise<string> {
  const found = await rows(connection, `SELECT invocation_id FROM invocation WHERE branch = $1 ORDER BY ${WHEN} DESC NULLS LAST, run_id DESC LIMIT 1`, [branch]);
  if (!found[0]) throw new AtticError('not-found', `No invocation on branch '${branch}'. See dbtattic branch list.`);
  return String(found[0].invocation_id);
}

async function latestBefore(connection: DuckDBConnection, at: string): Promise<string> {
  if (Number.isNaN(Date.parse(at))) throw new AtticError('usage', `'${at}' is not a time: use ISO 8601, e.g. 2026-01-31T12:00:00Z.`);
  const found = await rows(connection, `SELECT invocation_id FROM invocation WHERE ${WHEN} <= $1::TIMESTAMPTZ ORDER BY ${WHEN} DESC, run_id DESC LIMIT 1`, [at]);
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
  const found = await rows(
    connection,
    `SELECT p.invocation_id FROM invocation p, invocation c
     WHERE c.invocation_id = $1 AND p.invocation_id <> c.invocation_id
       AND p.branch IS NOT DISTINCT FROM c.branch AND (c.target IS NULL OR p.target = c.target)
       AND coalesce(p.completed_at, p.generated_at) < coalesce(c.completed_at, c.generated_at)
       AND p.invocation_id IN (SELECT invocation_id FROM node_invocation)
     ORDER BY coalesce(p.completed_at, p.generated_at) DESC, p.run_id DESC LIMIT 1`,
    [id],
  );
  return found[0] ? String(found[0].invocation_id) : null;
}

/**
 * Nodes added, removed and changed from `a` to `b`, classified by the same macros as
 * v_node_changes. Empty when either invocation has no manifest.
 */
export async function compareNodes(connection: DuckDBConnection, a: string, b: string): Promise<Row[]> {
  return rows(
    connection,
    `WITH a AS (SELECT * FROM node_invocation WHERE invocation_id = $1),
          b AS (SELECT * FROM node_invocation WHERE invocation_id = $2),
          paired AS (
            SELECT coalesce(t.unique_id, f.unique_id) AS unique_id, coalesce(t.resource_type, f.resource_type) AS resource_type,
                   CASE WHEN f.unique_id IS NULL THEN ['added'] WHEN t.unique_id IS NULL THEN ['removed']
                        ELSE node_change_aspects(f, t, a.fingerprint, b.fingerprint, changed_called_macros($1, $2, t.unique_id)) END AS aspects,
                   a.fingerprint IS NOT NULL AND b.fingerprint IS NOT NULL AS fingerprints_known
            FROM (a JOIN node_version AS f ON f.node_version_id = a.node_version_id AND NOT f.disabled)
            FULL JOIN (b JOIN node_version AS t ON t.node_version_id = b.node_version_id AND NOT t.disabled) ON f.unique_id = t.unique_id)
     SELECT unique_id, resource_type,
            CASE WHEN aspects[1] IN ('added', 'removed') THEN aspects[1] ELSE node_change_kind(aspects, resource_type, fingerprints_known) END AS change,
            aspects
     FROM paired
     WHERE len(aspects) > 0 AND $1 IN (SELECT invocation_id FROM node_invocation) AND $2 IN (SELECT invocation_id FROM node_invocation)
     ORDER BY change, unique_id`,
    [a, b],
  );
}

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

/** The largest runtime changes among nodes both runs executed, biggest first. */
export async function compareRuntimes(connection: DuckDBConnection, a: string, b: string, limit = 10): Promise<Row[]> {
  return rows(
    connection,
    `SELECT b.unique_id, round(a.execution_time, 3) AS from_s, round(b.execution_time, 3) AS to_s,
            round(b.execution_time - a.execution_time, 3) AS delta_s,
            CASE WHEN a.execution_time > 0 THEN round(b.execution_time / a.execution_time, 2) END AS ratio
     FROM run_result a JOIN run_result b ON a.unique_id = b.unique_id
     WHERE a.invocation_id = $1 AND b.invocation_id = $2 AND a.execution_time IS NOT NULL AND b.execution_time IS NOT NULL
     ORDER BY abs(b.execution_time - a.execution_time) DESC, b.unique_id LIMIT $3`,
    [a, b, limit],
  );
}
