/**
 * The tables of the dataset, each a SELECT over the store. Every row belongs to one invocation,
 * its `owner`: the file of that invocation holds it, and the invocation's project and date are
 * the file's partition. Columns keep the store's names; JSON columns become text (every engine
 * reads a Parquet string, few read DuckDB's JSON type) and the store-relative `seq` is left out
 * (it shifts when an older run is filed late, which would rewrite every file after it).
 *
 * A change of a column, its type or a rule here changes what a file holds: raise
 * DATASET_VERSION, which is part of every file's name, so a new export rewrites the dataset.
 */
export const DATASET_VERSION = 1;

export interface DatasetTable {
  name: string;
  /** One row per …; the grain, for the docs and `_dbtattic_dataset.json`. */
  grain: string;
  /** The rows, with `owner` the invocation each belongs to. */
  select: string;
}

const TIME_ORDER = `coalesce(i.generated_at, c.captured_at)`;

/**
 * A digest the tables repeat per row (a node version's id, a fingerprint, a test's definitions),
 * as its first 15 hex digits: a BIGINT, named `<column>_key`. A hash has no redundancy for zstd
 * or a dictionary to find (a file holds a run, whose rows each name another node), so as text it
 * cost its 32 or 64 digits a row: node_version_id was half of run_result (10,000 nodes x 200
 * runs: the dataset 1.3x the store, docs/performance.md). 60 bits, so that every engine's signed
 * BIGINT holds it; equal digests give equal keys, and two of one project's n versions share a
 * key with odds about n²/2^61 (1 in 230 million at 100,000). node_version keeps the full id.
 */
const digestKey = (column: string): string => `('0x' || left(${column}, 15))::BIGINT`;

const INVOCATION = `
SELECT i.invocation_id AS owner, i.invocation_id, i.project_name, i.project_id, i.dbt_version, i.adapter_type, i.command,
  i.selection::VARCHAR AS selection, i.exclusion::VARCHAR AS exclusion, i.selector, i.resource_types::VARCHAR AS resource_types,
  i.full_refresh, i.target, i.target_source, i.vars::VARCHAR AS vars, i.invocation_command, i.args::VARCHAR AS args, i.env::VARCHAR AS env,
  i.generated_at, i.started_at, i.completed_at, coalesce(i.started_at, i.generated_at, c.captured_at) AS invoked_at,
  ${TIME_ORDER} AS ordered_at, i.elapsed_s, i.result_count, i.status_counts::VARCHAR AS status_counts, i.code_fingerprint,
  command_builds(i.command) AS builds, i.invocation_id IN (SELECT invocation_id FROM manifest_invocation) AS has_manifest,
  i.git_sha, i.git_branch, i.git_dirty, i.git_diff_hash, regexp_replace(i.git_remote, '//[^/@]*@', '//') AS git_remote, i.git_source,
  i.branch, i.run_id, i.run_command_line, i.run_exit_code,
  i.catalog_provider, i.catalog_status, i.catalog_snapshot_id, i.catalog_atomic, i.catalog_detail::VARCHAR AS catalog_detail
FROM invocation AS i LEFT JOIN capture AS c ON c.capture_id = i.run_id`;

const RUN_RESULT = `
SELECT r.invocation_id AS owner, r.invocation_id, r.unique_id, r.name,
  coalesce(r.resource_type, split_part(r.unique_id, '.', 1)) AS resource_type, r.materialization,
  ${digestKey('r.node_version_id')} AS node_version_key, ${digestKey('r.fingerprint')} AS fingerprint_key,
  r.defined_here, r.status, r.status IN ('success', 'pass', 'warn', 'fail') AND command_builds(i.command) AS completed,
  r.message, r.failures, r.execution_time, r.rows_affected, r.thread_id,
  r.compile_started_at, r.compile_completed_at, r.execute_started_at, r.execute_completed_at,
  r.adapter_response::VARCHAR AS adapter_response, r.batch_results::VARCHAR AS batch_results
FROM run_history AS r JOIN invocation AS i ON i.invocation_id = r.invocation_id`;

// definitions_key: test_run_state's digest of the definitions a test ran under; flaky compares them.
const TEST_RESULT = `
SELECT r.invocation_id AS owner, r.invocation_id, r.unique_id, r.name, coalesce(r.resource_type, split_part(r.unique_id, '.', 1)) AS resource_type,
  r.status, r.failures, r.message, r.execution_time, ${digestKey('t.definitions')} AS definitions_key
FROM run_history AS r
LEFT JOIN test_run_state AS t ON t.invocation_id = r.invocation_id AND t.unique_id = r.unique_id
WHERE coalesce(r.resource_type, split_part(r.unique_id, '.', 1)) IN ('test', 'unit_test')`;

const NODE_CHANGE = `
SELECT c.to_invocation AS owner, c.unique_id, v.name, v.resource_type, c.from_invocation, c.to_invocation,
  ${digestKey('c.from_version')} AS from_version_key, ${digestKey('c.to_version')} AS to_version_key, c.change_kind, c.what_changed, c.changed_macros
FROM node_change AS c JOIN node_version AS v ON v.node_version_id = coalesce(c.to_version, c.from_version)`;

const SOURCE_FRESHNESS = `
SELECT f.invocation_id AS owner, f.invocation_id, f.unique_id, f.status, f.message, f.max_loaded_at, f.snapshotted_at, f.age_s,
  f.warn_after_count, f.warn_after_period, f.error_after_count, f.error_after_period, f.criteria::VARCHAR AS criteria,
  f.execution_time, f.thread_id, f.adapter_response::VARCHAR AS adapter_response
FROM source_freshness AS f`;

/**
 * A node version is shared by every invocation holding it: it is written once, in the file of
 * the first invocation (in the history's order, v_invocation_sequence.seq) whose manifest holds
 * it. Found block by block: an invocation holds blocks, a block holds node rows. By seq, a
 * number, rather than by the (time, run, id) it stands for: arg_min over a struct took twice as
 * long at 10,000 nodes x 200 runs, and each export reads it twice (node_version and edge).
 */
const FIRST_HOLDER = `
sequence AS (SELECT invocation_id, seq FROM v_invocation_sequence),
first_block AS (
  SELECT b.block_id, arg_min(b.invocation_id, s.seq) AS invocation_id, min(s.seq) AS seq
  FROM invocation_node_block AS b JOIN sequence AS s ON s.invocation_id = b.invocation_id
  GROUP BY b.block_id
),
first_holder AS (
  SELECT nb.node_version_id, arg_min(f.invocation_id, f.seq) AS invocation_id
  FROM node_block AS nb JOIN first_block AS f ON f.block_id = nb.block_id
  GROUP BY nb.node_version_id
)`;

const NODE_VERSION = `
WITH ${FIRST_HOLDER}
SELECT h.invocation_id AS owner, ${digestKey('v.node_version_id')} AS node_version_key, v.node_version_id, v.unique_id, v.resource_type, v.disabled, v.name, v.package_name, v.path, v.patch_path,
  v.language, v.raw_code, v.materialization, v.database_name, v.schema_name, v.identifier, v.checksum, v.config::VARCHAR AS config,
  v.description, v.tags::VARCHAR AS tags, v.meta::VARCHAR AS meta, v.contract::VARCHAR AS contract, v.access, v.version, v.group_name,
  v.fqn::VARCHAR AS fqn, v.declared_columns::VARCHAR AS declared_columns, v.attributes::VARCHAR AS attributes
FROM node_version AS v JOIN first_holder AS h ON h.node_version_id = v.node_version_id`;

const EDGE = `
WITH ${FIRST_HOLDER}
SELECT h.invocation_id AS owner, ${digestKey('e.node_version_id')} AS node_version_key, v.unique_id, e.depends_on_id
FROM node_version_edge AS e
JOIN first_holder AS h ON h.node_version_id = e.node_version_id
JOIN node_version AS v ON v.node_version_id = e.node_version_id`;

export const DATASET_TABLES: readonly DatasetTable[] = [
  { name: 'invocation', grain: 'dbt invocation', select: INVOCATION },
  { name: 'run_result', grain: 'result of run_results.json, beside the node as defined when it ran', select: RUN_RESULT },
  { name: 'test_result', grain: 'result of a data or unit test, with the digest of the definitions it ran under', select: TEST_RESULT },
  { name: 'node_change', grain: 'change of a node between consecutive manifests of a branch (in the file of the later invocation)', select: NODE_CHANGE },
  { name: 'source_freshness', grain: 'source checked by `dbt source freshness`', select: SOURCE_FRESHNESS },
  { name: 'node_version', grain: 'distinct node definition (in the file of the first invocation holding it)', select: NODE_VERSION },
  { name: 'edge', grain: 'depends_on.nodes edge of a node version (beside its node_version row)', select: EDGE },
];

/** The table whose file of an invocation is written last, and marks it exported. */
export const INVOCATION_TABLE: DatasetTable = DATASET_TABLES[0]!;
