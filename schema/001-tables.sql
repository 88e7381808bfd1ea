-- dbtattic store: tables derived from the archive (the source of truth). The whole database can
-- be rebuilt from the archive, so these tables are a cache and may change with dbtattic.
--
-- Conventions
-- * Each table states its grain and its key. Only invocation's key is declared. Keys of the
--   content-addressed tables (node_version, macro_version, compiled_code) are not: an index on
--   them made every checkpoint rewrite it (120 ms for node_version at 10,000 nodes x 200 runs),
--   and the version writer writes each id once (src/store/version-writer.ts). Nor are those of
--   the per-invocation tables: an index per table slows the Appender and grows with history, and
--   the ingester replaces an invocation's rows as a whole (delete, then append), which keeps
--   them unique.
-- * Times are UTC (TIMESTAMPTZ); JSON columns hold what dbt wrote, NULL when it wrote nothing.
-- * Column order matches the row objects of src/extract/rows.ts, so a row appends in key order.

-- Grain: one dbt invocation (metadata.invocation_id; for dbt before 0.19 the archive derives one
-- from the content). Key: invocation_id. Artifact facts come from extract; capture facts (git,
-- phases, the `dbtattic run` command line and exit code) from the archive's capture records.
CREATE TABLE IF NOT EXISTS invocation (
  invocation_id      VARCHAR PRIMARY KEY,
  project_name       VARCHAR,      -- metadata.project_name, or the package whose md5 is project_id
  project_id         VARCHAR,
  dbt_version        VARCHAR,
  adapter_type       VARCHAR,
  command            VARCHAR,      -- as typed: build, run, test, docs generate, source freshness, ... (src/extract/command-name.ts)
  selection          JSON,         -- args.select (or models before 1.0)
  exclusion          JSON,         -- args.exclude
  selector           VARCHAR,
  resource_types     JSON,
  full_refresh       BOOLEAN,
  target             VARCHAR,      -- args.target, else as dbt resolved it when captured (target_source)
  vars               JSON,
  invocation_command VARCHAR,      -- dbt 1.5+: the command line as dbt saw it
  args               JSON,         -- all of run_results args
  env                JSON,         -- metadata.env: DBT_ENV_CUSTOM_ENV_* variables
  generated_at       TIMESTAMPTZ,
  started_at         TIMESTAMPTZ,  -- metadata.invocation_started_at, else completed_at - elapsed_s
  completed_at       TIMESTAMPTZ,  -- when run_results (or sources) was written
  elapsed_s          DOUBLE,
  result_count       INTEGER,
  status_counts      JSON,         -- {"success": 12, "error": 1}: results by normalised status
  code_fingerprint   VARCHAR,      -- hash of every node fingerprint: same code, same value, with or without git
  -- capture facts, filled by the ingester from capture records (src/store/capture-facts.ts)
  capture_phases      JSON,        -- ["pre", "post"]: phases in which artifacts were captured
  git_sha             VARCHAR,
  git_branch          VARCHAR,
  git_dirty           BOOLEAN,
  git_diff_hash       VARCHAR,
  git_remote          VARCHAR,
  git_source          VARCHAR,     -- where the branch came from
  run_command_line    VARCHAR,     -- `dbtattic run` only
  run_exit_code       INTEGER,     -- `dbtattic run` only
  branch              VARCHAR,     -- the capture's branch
  run_id              VARCHAR,     -- the capture that filed the invocation
  context_taken       VARCHAR,
  catalog_provider    VARCHAR,
  catalog_status      VARCHAR,
  catalog_snapshot_id VARCHAR,
  catalog_atomic      BOOLEAN,
  catalog_detail      JSON,
  target_source       VARCHAR      -- run_results args, command line, env:DBT_TARGET, or the profiles.yml read
);
COMMENT ON TABLE invocation IS 'One row per dbt invocation: project, dbt version, adapter, command, selection, target (with `target_source`: dbt''s args when `--target` was typed, else `run`''s command line, `DBT_TARGET`, or the profile''s default target in the profiles.yml dbt would read, when the capture or `run` read it), times, results by status, code fingerprint, git (sha, branch, dirty, diff hash, remote), catalog snapshot, branch, run id, `dbtattic run` command line and exit code';
COMMENT ON COLUMN invocation.target_source IS 'Where `target` came from: dbt''s args when `--target` was typed, else `run`''s command line, `DBT_TARGET`, or the profile''s default target in the profiles.yml dbt would read, when the capture or `run` read it';

-- Grain: one artifact version filed for an invocation, as the archive's artifact records say
-- (dbt may rewrite an artifact within one invocation; each version is kept).
-- Key: (invocation_id, artifact_type, object_id).
CREATE TABLE IF NOT EXISTS artifact_capture (
  invocation_id        VARCHAR NOT NULL,
  artifact_type        VARCHAR NOT NULL,  -- manifest, run_results, sources, catalog, semantic_manifest
  object_id            VARCHAR NOT NULL,  -- sha256 of the artifact's bytes in the archive
  size_bytes           BIGINT,
  schema_version       VARCHAR,           -- metadata.dbt_schema_version as written
  dbt_version          VARCHAR,
  generated_at         TIMESTAMPTZ,
  captured_at          TIMESTAMPTZ,
  capture_id           VARCHAR,
  phase                VARCHAR,           -- pre, post, manual
  invocation_id_source VARCHAR            -- metadata, content, manifest
);
COMMENT ON TABLE artifact_capture IS 'One row per artifact version filed for an invocation: type, object id, size, schema version, captured at, phase';

-- Grain: one distinct definition of a node (any manifest resource but macros: models, tests,
-- seeds, snapshots, analyses, operations, sources, exposures, metrics, semantic models, saved
-- queries, unit tests, groups, functions, docs; enabled or disabled). Key: node_version_id, a
-- sha256 of the definition without its invocation-specific fields (see
-- src/extract/node-version.ts). A node unchanged between runs keeps its row here. Every column
-- follows from the key: what one invocation rendered (relation_name, compiled SQL) is in
-- node_invocation, so no invocation shows another's.
CREATE TABLE IF NOT EXISTS node_version (
  node_version_id    VARCHAR NOT NULL,  -- unique: see src/store/version-writer.ts
  unique_id          VARCHAR NOT NULL,
  resource_type      VARCHAR NOT NULL,
  disabled           BOOLEAN NOT NULL,
  name               VARCHAR,
  package_name       VARCHAR,
  path               VARCHAR,      -- original_file_path
  patch_path         VARCHAR,      -- the YAML that documents or configures it
  language           VARCHAR,
  raw_code           VARCHAR,      -- raw_code (raw_sql before v7); a doc block's markdown
  materialization    VARCHAR,      -- config.materialized
  database_name      VARCHAR,
  schema_name        VARCHAR,
  identifier         VARCHAR,      -- alias, or a source's identifier
  checksum           VARCHAR,
  config             JSON,
  unrendered_config  JSON,
  description        VARCHAR,
  tags               JSON,
  meta               JSON,
  contract           JSON,
  access             VARCHAR,
  version            VARCHAR,      -- a versioned model's version
  group_name         VARCHAR,
  fqn                JSON,
  declared_columns   JSON,         -- columns as declared in YAML (description, data_type, ...)
  attributes         JSON,         -- what only this resource type has (test_metadata, freshness, owner, ...)
  -- what v_node_changes, inspect and diff compare (src/extract/compared-config.ts): config,
  -- unrendered_config and columns without absent values and the defaults a dbt release writes
  -- on its own, so an upgrade of dbt is not an edit
  config_compared            JSON,
  unrendered_config_compared JSON,
  columns_compared           JSON
);
COMMENT ON TABLE node_version IS 'One row per distinct node definition (any resource but macros), keyed by a hash of the definition without invocation-specific fields; shared by every invocation that has it';

-- An invocation's nodes are stored as content-defined blocks, not as a row per node per
-- invocation: between two runs most nodes are as they were, and rows that do not change are
-- not written again. The nodes of a manifest, sorted by unique_id, are cut into blocks after
-- each unique_id whose hash falls on a boundary (src/store/node-blocks.ts), so an edit changes
-- only the block holding it; a block's id is the hash of its rows. An invocation lists its
-- blocks. At 10,000 nodes x 30 runs, a row per node per invocation (and one per edge) was
-- 26 MB of a 51 MB store. node_invocation and node_depends_on are views over these tables,
-- with the columns the tables of those names had.

-- Grain: one node row of a block. Key: (block_id, unique_id, node_version_id). Written once,
-- when an invocation first holds the block; a block no invocation holds is deleted.
CREATE TABLE IF NOT EXISTS node_block (
  block_id         VARCHAR NOT NULL,  -- hash of the block's rows
  unique_id        VARCHAR NOT NULL,
  node_version_id  VARCHAR NOT NULL,
  fingerprint      VARCHAR,         -- semantic fingerprint of what the node builds (models, seeds,
                                    -- snapshots, tests, analyses); here, not in node_version,
                                    -- because it covers the macros the node calls
  relation_name    VARCHAR,         -- as the invocations holding the block rendered it; NULL when
                                    -- they compiled nothing
  compiled_code_id VARCHAR,         -- the SQL their manifest compiled (compiled_code); NULL after
                                    -- `dbt parse` or for a node it did not compile
  macro_set_id     VARCHAR          -- the macros its depends_on lists (macro_set); NULL for none
);
COMMENT ON TABLE node_block IS 'One row per node row of a content-defined block (an invocation''s nodes sorted by `unique_id`, cut where a hash of the `unique_id` says, about 8 to a block, keyed by the hash of its rows): a run that edits one node writes that node''s block, not a row per node';

-- Grain: a block of an invocation's manifest. Key: (invocation_id, block_id).
CREATE TABLE IF NOT EXISTS invocation_node_block (
  invocation_id VARCHAR NOT NULL,
  block_id      VARCHAR NOT NULL
);
COMMENT ON TABLE invocation_node_block IS 'One row per block an invocation holds (`node_block`): a run that edits one node writes that node''s block, not a row per node';

-- Grain: a node present in an invocation's manifest. Key: (invocation_id, node_version_id);
-- unique_id repeats only when a node is both enabled and disabled, or disabled twice.
CREATE OR REPLACE VIEW node_invocation AS
SELECT b.invocation_id, n.unique_id, n.node_version_id, n.fingerprint, n.relation_name, n.compiled_code_id
FROM invocation_node_block AS b
JOIN node_block AS n ON n.block_id = b.block_id;
COMMENT ON VIEW node_invocation IS 'One row per node present in an invocation''s manifest → its node version, semantic fingerprint, and what that invocation rendered: relation name and compiled SQL. A view over `invocation_node_block` and `node_block`, queried like a table';

-- Grain: one distinct compiled SQL text from a manifest's nodes (compiled_code; compiled_sql
-- before v7, injected_sql before 0.19). Key: compiled_code_id, the sha256 of the text. Shared by
-- every node_invocation that compiled to it, so a history of unchanged SQL costs one row. The
-- SQL files dbt writes under target/compiled and target/run are another source, kept apart.
CREATE TABLE IF NOT EXISTS compiled_code (
  compiled_code_id VARCHAR NOT NULL,  -- unique: see src/store/version-writer.ts
  code             VARCHAR NOT NULL
);
COMMENT ON TABLE compiled_code IS 'One row per distinct compiled SQL from a manifest (`compiled_code`, `compiled_sql` before v7), keyed by its hash and shared by every invocation that compiled to it';

-- Grain: one distinct node entry of a manifest, byte for byte as dbt wrote it (src/extract/entry-digest.ts).
-- Key: entry_digest. A memo for ingest, not history: the rows those bytes alone decide, so that
-- the next manifest holding the same entry (99 % of a 10,000-node project's, run after run)
-- takes them instead of parsing and hashing it again. Written when an entry is first ingested;
-- a row whose version or compiled SQL left the store goes with them. Unlike every other table it
-- may hold entries a rebuild would not (of a manifest dbt rewrote since): they are still exact.
CREATE TABLE IF NOT EXISTS node_entry (
  entry_digest      VARCHAR NOT NULL,
  unique_id         VARCHAR NOT NULL,
  node_version_id   VARCHAR NOT NULL,
  relation_name     VARCHAR,
  compiled_code_id  VARCHAR,
  depends_on_nodes  JSON NOT NULL,   -- depends_on.nodes, each once, in the entry's order
  depends_on_macros JSON NOT NULL
);
COMMENT ON TABLE node_entry IS 'One row per distinct node entry of a manifest, by SHA-256 of its bytes as dbt wrote them: the node version, relation name, compiled SQL id and `depends_on` those bytes decide. Ingest''s memo, not history: the next manifest holding the same entry (99 % of a 10,000-node project''s when 1 % of models change per run) takes its rows from here instead of parsing and hashing it again; its rows are exact, but may include entries of a manifest dbt rewrote since or `forget` forgot, which a `rebuild` would not (no view reads it)';

-- Grain: one node edge (depends_on.nodes) of an enabled node version. Key: (node_version_id,
-- depends_on_id). depends_on.nodes is part of the definition a version hashes, so the edges
-- follow from the version: written once, with it (src/store/version-writer.ts).
CREATE TABLE IF NOT EXISTS node_version_edge (
  node_version_id VARCHAR NOT NULL,
  depends_on_id   VARCHAR NOT NULL
);
COMMENT ON TABLE node_version_edge IS 'One row per `depends_on.nodes` edge of a node version (part of its definition, so written once with it)';

-- Grain: one macro of a distinct set of macros a node's depends_on lists. Key: (macro_set_id,
-- depends_on_id); macro_set_id is the hash of the sorted set. depends_on.macros is not part of
-- a node version (src/extract/node-version.ts says why), so the set is the invocation's, named
-- from its node_block row; the few distinct sets are shared by every invocation listing them.
CREATE TABLE IF NOT EXISTS macro_set (
  macro_set_id  VARCHAR NOT NULL,
  depends_on_id VARCHAR NOT NULL
);
COMMENT ON TABLE macro_set IS 'One row per macro of a distinct set of `depends_on.macros` (outside the version hash), named by a node''s `node_block` row';

-- Grain: one edge of an enabled node's depends_on in an invocation's manifest.
-- Key: (invocation_id, unique_id, depends_on_id, kind).
CREATE OR REPLACE VIEW node_depends_on AS
SELECT b.invocation_id, n.unique_id, e.depends_on_id, 'node' AS kind
FROM invocation_node_block AS b
JOIN node_block AS n ON n.block_id = b.block_id
JOIN node_version_edge AS e ON e.node_version_id = n.node_version_id
UNION ALL
SELECT b.invocation_id, n.unique_id, m.depends_on_id, 'macro' AS kind
FROM invocation_node_block AS b
JOIN node_block AS n ON n.block_id = b.block_id
JOIN macro_set AS m ON m.macro_set_id = n.macro_set_id;
COMMENT ON VIEW node_depends_on IS 'One row per `depends_on` edge of an enabled node in an invocation (kind `node` or `macro`). A view: node edges come from `node_version_edge`, macro edges from `macro_set`';

-- Grain: one change of one node between two consecutive manifests of a project on a branch,
-- the rows v_node_changes shows (schema/002-views.sql states the rules). Key: (unique_id,
-- to_invocation). Derived when invocations are ingested (src/store/node-changes.ts), not at
-- each read: a read that compared all of history grew with it. When an invocation is ingested
-- or forgotten, the rows of the manifests from its place on in its partition are derived
-- again, so the table is the same whatever order artifacts arrived in.
CREATE TABLE IF NOT EXISTS node_change (
  unique_id       VARCHAR NOT NULL,
  from_invocation VARCHAR NOT NULL,  -- the previous manifest of the project and branch
  to_invocation   VARCHAR NOT NULL,
  from_version    VARCHAR,           -- NULL when added
  to_version      VARCHAR,           -- NULL when removed
  change_kind     VARCHAR NOT NULL,  -- semantic, relation, config, cosmetic, compiled, docs, other, added, removed
  what_changed    VARCHAR[],         -- the aspects that differ (node_change_aspects, 002-macros.sql)
  changed_macros  VARCHAR[]          -- macros it calls directly whose SQL changed
);
COMMENT ON TABLE node_change IS 'One row per change of a node between two consecutive manifests of a project on a branch (the rows of `v_node_changes`), derived when invocations are ingested: a new run costs its own comparison with the run before, and an older invocation filed late re-derives the rows of the manifests after it, so the table equals what `rebuild` derives';

-- Macros have tables of their own: they are most of a manifest's entries (150 to 1,000, mostly
-- dbt's own, unchanged for months) and share few columns with nodes; node queries need not
-- filter them out. Grain: one distinct macro definition. Key: macro_version_id.
CREATE TABLE IF NOT EXISTS macro_version (
  macro_version_id    VARCHAR NOT NULL,  -- unique: see src/store/version-writer.ts
  unique_id           VARCHAR NOT NULL,
  name                VARCHAR,
  package_name        VARCHAR,
  path                VARCHAR,      -- original_file_path
  patch_path          VARCHAR,
  macro_sql           VARCHAR,
  description         VARCHAR,
  meta                JSON,
  arguments           JSON,
  depends_on_macros   JSON,
  supported_languages JSON
);
COMMENT ON TABLE macro_version IS 'One row per distinct macro definition';

-- Grain: a macro present in an invocation's manifest. Key: (invocation_id, unique_id).
CREATE TABLE IF NOT EXISTS macro_invocation (
  invocation_id    VARCHAR NOT NULL,
  unique_id        VARCHAR NOT NULL,
  macro_version_id VARCHAR NOT NULL
);
COMMENT ON TABLE macro_invocation IS 'One row per macro present in an invocation';

-- Grain: one result of run_results.json (a node executed, tested, compiled or skipped) that
-- ingest has read and run history has not matched yet. Key: (invocation_id, unique_id).
-- Ingest appends here; refreshing run history (src/store/run-history.ts), later in the same
-- catch-up, moves the rows into run_history, so this is empty between catch-ups (a catch-up
-- killed in between leaves rows here, and the next one matches them). Read run_result.
CREATE TABLE IF NOT EXISTS run_result_pending (
  invocation_id        VARCHAR NOT NULL,
  unique_id            VARCHAR NOT NULL,
  status               VARCHAR,      -- lower case; see src/extract/status.ts
  message              VARCHAR,
  failures             BIGINT,
  execution_time       DOUBLE,
  thread_id            VARCHAR,
  compile_started_at   TIMESTAMPTZ,
  compile_completed_at TIMESTAMPTZ,
  execute_started_at   TIMESTAMPTZ,
  execute_completed_at TIMESTAMPTZ,
  rows_affected        BIGINT,       -- adapter_response.rows_affected
  adapter_response     JSON,
  batch_results        JSON          -- microbatch models (dbt 1.9+)
);
COMMENT ON TABLE run_result_pending IS 'One row per result of run_results.json that ingest has read and run history has not matched yet: empty between catch-ups (a catch-up killed in between leaves rows here, and the next one matches them). Read `run_result`';

-- Grain: an invocation whose manifest was ingested: it has node_invocation rows. Key:
-- invocation_id. v_invocation_sequence.has_manifest, which every history view reads, looked
-- for each invocation in node_invocation, a scan of every node of every manifest at each read.
-- Derived when invocations are ingested or forgotten (src/store/run-history.ts).
CREATE TABLE IF NOT EXISTS manifest_invocation (
  invocation_id VARCHAR NOT NULL
);
COMMENT ON TABLE manifest_invocation IS 'One row per invocation whose manifest was ingested (it has `node_invocation` rows): `v_invocation_sequence.has_manifest`, kept at ingest rather than looked up in every node of every manifest at each read';

-- Grain: one run result beside the node as defined when it ran, the rows v_run_history shows
-- (schema/002-views.sql states the rule). Key: (invocation_id, unique_id). Derived when
-- invocations are ingested (src/store/run-history.ts), not at each read: matching every result
-- to the latest earlier manifest (an ASOF join over every node of every manifest) grew with the
-- history, and so did joining run_result to a table of the matches (about 0.4 s for 2 million
-- results), so this is where a run result is kept, its columns beside the match, and the view
-- run_result reads them from here: stored twice, results were three quarters of a store of
-- 10,000 nodes x 200 runs. A result defined by its own invocation's manifest keeps its match;
-- the others (no manifest, or the node not in it) are matched again whenever an invocation is
-- ingested or forgotten, so the table is the same whatever order artifacts arrived in.
CREATE TABLE IF NOT EXISTS run_history (
  invocation_id        VARCHAR NOT NULL,
  unique_id            VARCHAR NOT NULL,
  defined_here         BOOLEAN NOT NULL,  -- the node as its own invocation's manifest has it (enabled)
  name                 VARCHAR,           -- the node as defined: NULL when no manifest up to the run lists it
  resource_type        VARCHAR,
  materialization      VARCHAR,
  node_version_id      VARCHAR,
  fingerprint          VARCHAR,
  status               VARCHAR,           -- the rest as run_results.json has it (run_result_pending)
  message              VARCHAR,
  failures             BIGINT,
  execution_time       DOUBLE,
  rows_affected        BIGINT,
  execute_started_at   TIMESTAMPTZ,
  execute_completed_at TIMESTAMPTZ,
  thread_id            VARCHAR,
  compile_started_at   TIMESTAMPTZ,
  compile_completed_at TIMESTAMPTZ,
  adapter_response     JSON,
  batch_results        JSON
);
COMMENT ON TABLE run_history IS 'One row per run result beside the node as defined when it ran (its own manifest, else the latest earlier one): the rows of `v_run_history`, matched when invocations are ingested. A result its own manifest defines keeps its match; the others are matched again at each ingest or forget, so the table equals what `rebuild` derives. It is where each result is kept, its columns beside the match, so no read joins the history twice (joining 2 million results to their matches took 0.4 s)';

-- Grain: one result of run_results.json (a node executed, tested, compiled or skipped). Key:
-- (invocation_id, unique_id). Every run result the store holds: those matched (run_history)
-- and those not yet (run_result_pending).
CREATE OR REPLACE VIEW run_result AS
SELECT invocation_id, unique_id, status, message, failures, execution_time, thread_id, compile_started_at, compile_completed_at,
       execute_started_at, execute_completed_at, rows_affected, adapter_response, batch_results
FROM run_history
UNION ALL
SELECT * FROM run_result_pending;
COMMENT ON VIEW run_result IS 'One row per result in run_results.json: status (lower case), timing, thread, message, failures, rows affected, adapter response. A view: the results are kept once, in `run_history`, and ingest''s `run_result_pending` holds those read but not matched yet (empty between catch-ups; a catch-up killed in between leaves rows there, and the next one matches them)';

-- The tables below hold what v_test_history shows (schema/002-views.sql states its rules),
-- derived when invocations are ingested or forgotten (src/store/test-history.ts,
-- src/store/test-definitions.ts). At each read, the view looked up every test's parents in the
-- nodes of its recent manifests and every test's latest definition in every manifest, and
-- aggregated every test result of history: at 10,000 nodes x 30 runs, 717 ms of a 500 ms budget,
-- growing with each run.

-- Grain: one test result (data test or unit test) that ran (pass, warn, fail, error, runtime
-- error) under a definition its own invocation's manifest holds (enabled). Key: (invocation_id,
-- unique_id). definitions: the md5 of the test's semantic fingerprint (else its node version)
-- and those of the nodes it depends on directly, as that same manifest has them; flaky compares
-- them within a test's last 10 runs. Every row follows from its own invocation alone, so it is
-- derived when that invocation is ingested and dropped when it is forgotten.
CREATE TABLE IF NOT EXISTS test_run_state (
  invocation_id VARCHAR NOT NULL,
  unique_id     VARCHAR NOT NULL,
  definitions   VARCHAR NOT NULL
);
COMMENT ON TABLE test_run_state IS 'One row per test result, with a digest of the definitions it ran under (its own and its parents'', from its own manifest alone); part of the rows of `v_test_history`, derived as `test_history` is';

-- Grain: one test (data test or unit test) enabled in some manifest: the latest such manifest
-- (v_invocation_sequence order) and the version it holds there. Key: unique_id. A manifest
-- ingested later in history replaces a test's row; when the manifest a row names is ingested
-- again or forgotten, the test's latest manifest is looked for again among all manifests.
CREATE TABLE IF NOT EXISTS test_definition (
  unique_id       VARCHAR NOT NULL,
  invocation_id   VARCHAR NOT NULL,
  node_version_id VARCHAR NOT NULL
);
COMMENT ON TABLE test_definition IS 'One row per test: its latest enabled definition; part of the rows of `v_test_history`, derived as `test_history` is';

-- Grain: one test with at least one result in a command that builds; the rows of
-- v_test_history but for the definition columns. Key: unique_id. A run later in history than
-- every run counted here is added to its tests' rows (counts summed, the latest values taken
-- from it, recent prepended); anything else (a run filed late, one counted before ingested
-- again, a forgotten invocation) derives the table again from run_history, so it is the same
-- whatever order artifacts arrived in.
CREATE TABLE IF NOT EXISTS test_history (
  unique_id                  VARCHAR NOT NULL,
  name                       VARCHAR,
  runs                       BIGINT NOT NULL,
  passes                     BIGINT NOT NULL,
  warns                      BIGINT NOT NULL,
  fails                      BIGINT NOT NULL,
  errors                     BIGINT NOT NULL,
  skips                      BIGINT NOT NULL,
  last_status                VARCHAR,
  last_run_at                TIMESTAMPTZ,
  last_failure_at            TIMESTAMPTZ,
  last_failure_invocation_id VARCHAR,
  -- the last 10 runs that ran, newest first; definitions as test_run_state has them (NULL: the
  -- run's manifest did not define the test)
  recent                     STRUCT(invocation_id VARCHAR, passed BOOLEAN, definitions VARCHAR)[] NOT NULL,
  flaky                      BOOLEAN NOT NULL
);
COMMENT ON TABLE test_history IS 'One row per test, the rows of `v_test_history`, derived when invocations are ingested: its counts, latest status and failure, its last 10 runs and `flaky`. A run later than every run counted (a new capture) is added to the counts; a run filed late, one ingested again or a forget derives them again, so the tables equal what `rebuild` derives (`history_counted_invocation` lists the runs counted)';

-- Grain: an invocation whose run results test_history and node_runtime count. Key:
-- invocation_id. Tells a run that can be added to the counts from one that must derive them
-- again (src/store/history-aggregates.ts).
CREATE TABLE IF NOT EXISTS history_counted_invocation (
  invocation_id VARCHAR NOT NULL
);
COMMENT ON TABLE history_counted_invocation IS 'One row per invocation whose run results `test_history` and `node_runtime` count: tells a run that can be added to the counts from one that must derive them again';

-- Grain: one node with at least one completed execution; the rows of v_node_runtime, whose
-- rules schema/002-views.sql states, but for the baseline and trend worked out from recent_s.
-- Key: unique_id. At each read, the view aggregated every run result of history (2 million at
-- 10,000 nodes x 200 runs). Derived like test_history: a run later than every run counted is
-- merged in; anything else derives the table again from run_history.
-- The median and p95 of all times need only the times near their ranks: each is kept with a
-- window of the sorted times around its rank (schema/002-macros.sql, window_*), so merging a
-- run costs the window, not the history. A window the ranks move out of is filled again from
-- run_history (src/store/node-runtime.ts).
CREATE TABLE IF NOT EXISTS node_runtime (
  unique_id          VARCHAR NOT NULL,
  runs               BIGINT NOT NULL,
  median_s           DOUBLE NOT NULL,
  p95_s              DOUBLE NOT NULL,
  median_window      STRUCT(skip BIGINT, times DOUBLE[]) NOT NULL,
  p95_window         STRUCT(skip BIGINT, times DOUBLE[]) NOT NULL,
  -- the last 11 completed execution times, newest first: the last run and its baseline
  recent_s           DOUBLE[] NOT NULL,
  last_invocation_id VARCHAR NOT NULL,
  last_at            TIMESTAMPTZ,
  -- as the last run's own manifest has them (NULL without one)
  name               VARCHAR,
  resource_type      VARCHAR
);
COMMENT ON TABLE node_runtime IS 'One row per node with a completed run, the rows of `v_node_runtime` but for the baseline, derived when invocations are ingested, as `test_history` is: its completed runs, median, p95, every time sorted (what a merge needs) and the last 11';

-- Grain: one source checked by `dbt source freshness`. Key: (invocation_id, unique_id).
CREATE TABLE IF NOT EXISTS source_freshness (
  invocation_id      VARCHAR NOT NULL,
  unique_id          VARCHAR NOT NULL,
  status             VARCHAR,      -- pass, warn, error, runtime error
  message            VARCHAR,      -- the error of a runtime error
  max_loaded_at      TIMESTAMPTZ,
  snapshotted_at     TIMESTAMPTZ,
  age_s              DOUBLE,       -- max_loaded_at_time_ago_in_s
  warn_after_count   INTEGER,
  warn_after_period  VARCHAR,
  error_after_count  INTEGER,
  error_after_period VARCHAR,
  criteria           JSON,
  execution_time     DOUBLE,
  thread_id          VARCHAR,
  adapter_response   JSON
);
COMMENT ON TABLE source_freshness IS 'One row per source (or, from dbt v2''s freshness.json, model) checked for freshness: status, max_loaded_at, age, thresholds';

-- Grain: one relation described by catalog.json (a node or a source). Key: (invocation_id, unique_id).
CREATE TABLE IF NOT EXISTS catalog_table (
  invocation_id VARCHAR NOT NULL,
  unique_id     VARCHAR NOT NULL,
  database_name VARCHAR,
  schema_name   VARCHAR,
  table_name    VARCHAR,
  table_type    VARCHAR,      -- table, view, ...
  owner         VARCHAR,
  comment       VARCHAR,
  row_count     BIGINT,       -- from stats, when the adapter reports it
  byte_count    BIGINT,       -- from stats, when the adapter reports it
  stats         JSON
);
COMMENT ON TABLE catalog_table IS 'One row per relation described by catalog.json';

-- Grain: one column of a relation in catalog.json. Key: (invocation_id, unique_id, column_name).
CREATE TABLE IF NOT EXISTS catalog_column (
  invocation_id VARCHAR NOT NULL,
  unique_id     VARCHAR NOT NULL,
  column_name   VARCHAR NOT NULL,
  column_type   VARCHAR,
  column_index  INTEGER,
  comment       VARCHAR
);
COMMENT ON TABLE catalog_column IS 'One row per column described by catalog.json';

-- Grain: one entry of semantic_manifest.json (a semantic model, metric, saved query, or the
-- project configuration). Key: (invocation_id, kind, name).
CREATE TABLE IF NOT EXISTS semantic_definition (
  invocation_id VARCHAR NOT NULL,
  kind          VARCHAR NOT NULL,  -- semantic_model, metric, saved_query, project_configuration
  name          VARCHAR NOT NULL,
  definition    JSON NOT NULL
);
COMMENT ON TABLE semantic_definition IS 'One row per entry of semantic_manifest.json (semantic model, metric, saved query)';
