import type { DuckDBConnection } from '@duckdb/node-api';
import { duckdb } from '../duckdb.js';
import { invocationNodes } from './invocation-nodes.js';

/**
 * node_change (schema/001-tables.sql) holds v_node_changes' rows, computed when invocations are
 * ingested rather than at every read: comparing all of history at each read grew with the
 * history, and its macro comparison joined every invocation's macros to every other's through
 * shared macro versions (quadratic in runs; 10,000 nodes x 200 runs filled the disk).
 *
 * The rows of a manifest are those comparing it with the previous manifest of its project and
 * branch, plus its compiled SQL against the last compiled earlier in that partition. So when an
 * invocation is (re)ingested or forgotten, the rows to derive again are those of the manifests
 * from its position on, in its partition (old and new): for a new run, its own rows only; for an
 * older invocation ingested late, its successors' too. The result does not depend on the order
 * in which artifacts arrived, so `rebuild` equals the incremental store.
 */

/** The manifests in each partition, numbered in history order (v_invocation_sequence.seq). */
const MANIFESTS = `
  SELECT invocation_id, coalesce(project_name, '') AS project_key, coalesce(branch, '') AS branch_key,
         row_number() OVER (PARTITION BY coalesce(project_name, ''), coalesce(branch, '') ORDER BY seq) AS k
  FROM v_invocation_sequence
  WHERE has_manifest`;

/**
 * The manifests that follow each of `ids` in its partition as the store stands: called before
 * an invocation's rows are replaced or dropped, because its successor compares with it.
 */
export async function changeFollowers(connection: DuckDBConnection, ids: readonly string[]): Promise<string[]> {
  const stored = await connection.runAndReadAll(
    "SELECT DISTINCT invocation_id FROM artifact_capture WHERE artifact_type = 'manifest' AND invocation_id IN (SELECT unnest($1::VARCHAR[]))",
    [duckdb.listValue([...ids])],
    // Typed: an empty list has no item type to infer (a forget that drops captures only).
    [duckdb.LIST(duckdb.VARCHAR)],
  );
  const held = stored.getRows().map(([id]) => String(id));
  if (held.length === 0) return [];
  const reader = await connection.runAndReadAll(
    `WITH manifest AS (${MANIFESTS})
     SELECT next.invocation_id FROM manifest AS m
     JOIN manifest AS next ON next.project_key = m.project_key AND next.branch_key = m.branch_key AND next.k = m.k + 1
     WHERE m.invocation_id IN (SELECT unnest($1::VARCHAR[]))`,
    [duckdb.listValue(held)],
    [duckdb.LIST(duckdb.VARCHAR)],
  );
  return reader.getRows().map(([id]) => String(id));
}

/**
 * Derives again the change rows of the manifests from each of `from` on, in its partition, and
 * drops rows of manifests the store no longer holds.
 */
export async function refreshNodeChanges(connection: DuckDBConnection, from: readonly string[]): Promise<void> {
  await connection.run(`CREATE OR REPLACE TEMP TABLE change_manifest AS ${MANIFESTS}`);
  // Typed: an empty list (a forgotten manifest with no successor) has no item type to infer.
  await connection.run(PAIRS, [duckdb.listValue([...from])], [duckdb.LIST(duckdb.VARCHAR)]);
  await connection.run(
    `DELETE FROM node_change
     WHERE to_invocation IN (SELECT to_invocation FROM change_pairs) OR to_invocation NOT IN (SELECT invocation_id FROM change_manifest)`,
  );
  // A few pairs at a time: a rebuild derives every pair of the history, and the entries of all
  // of them at once (10,000 nodes x 50 runs) outgrew the writer's memory limit.
  const batches = Number((await connection.runAndReadAll(`SELECT coalesce(max(batch), -1) + 1 FROM change_pairs`)).getRows()[0]?.[0] ?? 0);
  const compiled = await hasRows(connection, "SELECT 1 FROM node_sql WHERE kind = 'compiled'");
  for (let batch = 0; batch < batches; batch++) {
    await connection.run(`CREATE OR REPLACE TEMP TABLE change_pair AS SELECT * EXCLUDE (batch) FROM change_pairs WHERE batch = ${batch}`);
    // One statement per step: DuckDB, given the whole as one query, joined macro entries of all
    // invocations through their shared versions, which is what made the old view quadratic.
    for (const step of STEPS) await connection.run(step);
    await connection.run(candidates({ compiled, macros: await hasRows(connection, 'SELECT 1 FROM change_macro') }));
    await connection.run(CHANGED_ROWS);
  }
  for (const table of TEMP_TABLES) await connection.run(`DROP TABLE IF EXISTS ${table}`);
}

async function hasRows(connection: DuckDBConnection, sql: string): Promise<boolean> {
  return (await connection.runAndReadAll(`SELECT EXISTS (${sql})`)).getRows()[0]?.[0] === true;
}

const TEMP_TABLES = ['change_manifest', 'change_pairs', 'change_pair', 'change_entry', 'change_macro', 'change_candidate'];

/** Pairs derived in one pass: their entries, twice over, are what a pass holds in memory. */
const PAIRS_PER_BATCH = 8;

/**
 * The manifests whose rows are derived again (from the first dirty one on, per partition), each
 * with the one before (none for a partition's first, whose nodes are its starting point).
 */
const PAIRS = `
CREATE OR REPLACE TEMP TABLE change_pairs AS
WITH start AS (
  SELECT project_key, branch_key, min(k) AS k0 FROM change_manifest
  WHERE invocation_id IN (SELECT unnest($1::VARCHAR[])) GROUP BY ALL
)
SELECT m.project_key, m.branch_key, m.k, m.invocation_id AS to_invocation, p.invocation_id AS from_invocation,
       (row_number() OVER (ORDER BY m.project_key, m.branch_key, m.k) - 1) // ${PAIRS_PER_BATCH} AS batch
FROM change_manifest AS m
JOIN start AS s ON s.project_key = m.project_key AND s.branch_key = m.branch_key AND m.k >= s.k0
LEFT JOIN change_manifest AS p ON p.project_key = m.project_key AND p.branch_key = m.branch_key AND p.k = m.k - 1`;

/**
 * Compiled SQL of the partitions' manifests, with the definition it was compiled from: a parse
 * or a seed between two builds compiles nothing, so the last one written counts.
 */
const COMPILED_BEFORE = `
  SELECT m.project_key, m.branch_key, m.k, sql.unique_id, sql.object_id, ni.node_version_id, ni.fingerprint
  FROM node_sql AS sql
  JOIN change_manifest AS m ON m.invocation_id = sql.invocation_id
  JOIN (SELECT DISTINCT project_key, branch_key FROM change_pair) AS part ON part.project_key = m.project_key AND part.branch_key = m.branch_key
  JOIN node_invocation AS ni ON ni.invocation_id = sql.invocation_id AND ni.unique_id = sql.unique_id
  JOIN node_version AS nv ON nv.node_version_id = ni.node_version_id
  WHERE sql.kind = 'compiled' AND NOT nv.disabled`;

/** Changed macros (change_macro) the node calls directly in both manifests. */
const MACRO_CHANGE = `
  SELECT m.to_invocation, dn.unique_id, list(DISTINCT m.macro_id ORDER BY m.macro_id) AS changed_macros
  FROM change_macro AS m
  JOIN node_depends_on AS dn ON dn.invocation_id = m.to_invocation AND dn.depends_on_id = m.macro_id AND dn.kind = 'macro'
  JOIN node_depends_on AS dw ON dw.invocation_id = m.from_invocation AND dw.depends_on_id = m.macro_id AND dw.kind = 'macro' AND dw.unique_id = dn.unique_id
  GROUP BY ALL`;

/**
 * Stand-ins for the two above when they have nothing to read (no compiled SQL files in the
 * store, no changed macro in the batch: most captures): given an empty table, DuckDB still
 * joined every manifest's node blocks on each side, 0.1 s at 10,000 nodes x 200 runs.
 */
const NO_COMPILED_BEFORE = `SELECT NULL::VARCHAR AS project_key, NULL::VARCHAR AS branch_key, NULL::BIGINT AS k, NULL::VARCHAR AS unique_id,
  NULL::VARCHAR AS object_id, NULL::VARCHAR AS node_version_id, NULL::VARCHAR AS fingerprint WHERE false`;
const NO_MACRO_CHANGE = `SELECT NULL::VARCHAR AS to_invocation, NULL::VARCHAR AS unique_id, NULL::VARCHAR[] AS changed_macros WHERE false`;

/** Nodes of each pair that may have changed: added, or another version, fingerprint, called macro or compiled SQL. */
const candidates = (read: { compiled: boolean; macros: boolean }): string => `
CREATE OR REPLACE TEMP TABLE change_candidate AS
WITH entry_to AS (
  SELECT c.project_key, c.branch_key, c.k, c.from_invocation, c.to_invocation, e.unique_id, e.node_version_id, e.fingerprint, sql.object_id AS compiled_object
  FROM change_pair AS c
  JOIN change_entry AS e ON e.invocation_id = c.to_invocation
  LEFT JOIN node_sql AS sql ON sql.invocation_id = e.invocation_id AND sql.unique_id = e.unique_id AND sql.kind = 'compiled'
  WHERE c.from_invocation IS NOT NULL
),
compiled_before AS (${read.compiled ? COMPILED_BEFORE : NO_COMPILED_BEFORE}
),
compiled AS (
  -- The earlier compiled SQL counts only if the node's definition and fingerprint are those it
  -- was compiled from.
  SELECT n.*, CASE WHEN b.node_version_id = n.node_version_id AND b.fingerprint IS NOT DISTINCT FROM n.fingerprint THEN b.object_id END AS prev_compiled
  FROM entry_to AS n
  ASOF LEFT JOIN compiled_before AS b
    ON b.project_key = n.project_key AND b.branch_key = n.branch_key AND b.unique_id = n.unique_id AND b.k < n.k
),
macro_change AS (${read.macros ? MACRO_CHANGE : NO_MACRO_CHANGE}
)
SELECT
  n.unique_id, n.from_invocation, n.to_invocation, w.node_version_id AS from_version, n.node_version_id AS to_version,
  w.fingerprint AS from_fingerprint, n.fingerprint AS to_fingerprint, mc.changed_macros,
  compiled_sql_aspect(n.prev_compiled, n.compiled_object) AS compiled_aspect
FROM compiled AS n
LEFT JOIN change_entry AS w ON w.invocation_id = n.from_invocation AND w.unique_id = n.unique_id
LEFT JOIN macro_change AS mc ON mc.to_invocation = n.to_invocation AND mc.unique_id = n.unique_id
WHERE w.unique_id IS NULL OR w.node_version_id <> n.node_version_id OR mc.changed_macros IS NOT NULL
   OR w.fingerprint IS DISTINCT FROM n.fingerprint OR len(compiled_sql_aspect(n.prev_compiled, n.compiled_object)) > 0`;

/** The columns of node_version that node_change_aspects (schema/002-macros.sql) reads, and the resource type. */
export const COMPARED_VERSION_COLUMNS = `node_version_id, resource_type, raw_code, checksum, config, config_compared, unrendered_config_compared, materialization,
  contract, database_name, schema_name, identifier, description, tags, meta, columns_compared`;

/** The rows: candidates classified by their aspects, added and removed nodes. */
const CHANGED_ROWS = `
INSERT INTO node_change
WITH version AS (
  -- only the versions compared, and only the columns node_change_aspects reads: the whole row
  -- of every version, twice, was most of an ingest's cost here on a large project
  SELECT ${COMPARED_VERSION_COLUMNS}
  FROM node_version
  WHERE node_version_id IN (SELECT from_version FROM change_candidate UNION SELECT to_version FROM change_candidate)
),
changed AS (
  SELECT
    c.unique_id, c.from_invocation, c.to_invocation, c.from_version, c.to_version, t.resource_type, c.changed_macros,
    c.from_fingerprint IS NOT NULL AND c.to_fingerprint IS NOT NULL AS fingerprints_known,
    change_aspects_or_other(
      list_concat(node_change_aspects(f, t, c.from_fingerprint, c.to_fingerprint, c.changed_macros, fi.adapter_type, ti.adapter_type), c.compiled_aspect),
      f.node_version_id, t.node_version_id, fi.dbt_version, ti.dbt_version, c.unique_id) AS aspects
  FROM change_candidate AS c
  JOIN version AS f ON f.node_version_id = c.from_version
  JOIN version AS t ON t.node_version_id = c.to_version
  JOIN invocation AS fi ON fi.invocation_id = c.from_invocation
  JOIN invocation AS ti ON ti.invocation_id = c.to_invocation
)
-- A change with no aspect left is a dbt release reshaping the node (change_aspects_or_other): no row.
SELECT unique_id, from_invocation, to_invocation, from_version, to_version, node_change_kind(aspects, resource_type, fingerprints_known), aspects, changed_macros
FROM changed
WHERE len(aspects) > 0
UNION ALL
SELECT unique_id, from_invocation, to_invocation, NULL, to_version, 'added', NULL, NULL
FROM change_candidate
WHERE from_version IS NULL
UNION ALL
SELECT w.unique_id, c.from_invocation, c.to_invocation, w.node_version_id, NULL, 'removed', NULL, NULL
FROM change_pair AS c
JOIN change_entry AS w ON w.invocation_id = c.from_invocation
WHERE NOT EXISTS (SELECT 1 FROM change_entry AS n WHERE n.invocation_id = c.to_invocation AND n.unique_id = w.unique_id)`;

/**
 * What the rows of each pair of consecutive manifests in change_pair are derived from (then
 * candidates() and CHANGED_ROWS), by the rules v_node_changes states (schema/002-views.sql).
 * Every join is keyed by the pairs' invocations, so the cost is that of the pairs, never of the
 * history.
 */
const STEPS = [
  // Enabled entries of the manifests compared; disabled ones count as absent.
  `CREATE OR REPLACE TEMP TABLE change_entry AS
   WITH ${invocationNodes('pair_node', '(SELECT to_invocation FROM change_pair UNION SELECT from_invocation FROM change_pair)')}
   SELECT ni.invocation_id, ni.unique_id, ni.node_version_id, ni.fingerprint
   FROM pair_node AS ni
   JOIN node_version AS nv ON nv.node_version_id = ni.node_version_id
   WHERE NOT nv.disabled`,
  // Macros in both manifests of a pair with another version; their SQL is compared below.
  `CREATE OR REPLACE TEMP TABLE change_macro AS
   SELECT c.from_invocation, c.to_invocation, mt.unique_id AS macro_id, mf.macro_version_id AS from_macro, mt.macro_version_id AS to_macro
   FROM change_pair AS c
   JOIN macro_invocation AS mf ON mf.invocation_id = c.from_invocation
   JOIN macro_invocation AS mt ON mt.invocation_id = c.to_invocation AND mt.unique_id = mf.unique_id
   WHERE mf.macro_version_id <> mt.macro_version_id`,
  // ... whose SQL differs (a reshaped entry is no change).
  `DELETE FROM change_macro AS m USING macro_version AS vf, macro_version AS vt
   WHERE vf.macro_version_id = m.from_macro AND vt.macro_version_id = m.to_macro AND vf.macro_sql IS NOT DISTINCT FROM vt.macro_sql`,
];
