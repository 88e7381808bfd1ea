-- Macros shared by views and by dbtattic's own queries (inspect, diff), so that a change
-- between two states of a node is classified by one rule everywhere.

-- How each adapter quotes a relation by default (every adapter all three parts, Snowflake
-- none), with the node's configured quoting over it: dbt 1.x writes `quoting: {}` for the
-- defaults, dbt Fusion writes them out (and `snowflake_ignore_case: false`), which is the same
-- relation. The rule of quotingBeyondDefaults in src/extract/build-config.ts.
CREATE OR REPLACE MACRO effective_quoting(config, adapter) AS {
  'database': coalesce(try_cast(json_extract(config, '$.quoting.database') AS BOOLEAN), adapter IS DISTINCT FROM 'snowflake'),
  'schema': coalesce(try_cast(json_extract(config, '$.quoting.schema') AS BOOLEAN), adapter IS DISTINCT FROM 'snowflake'),
  'identifier': coalesce(try_cast(json_extract(config, '$.quoting.identifier') AS BOOLEAN), adapter IS DISTINCT FROM 'snowflake'),
  'snowflake_ignore_case': coalesce(try_cast(json_extract(config, '$.quoting.snowflake_ignore_case') AS BOOLEAN), false)
};

-- A contract as compared: nothing unless enforced (newer dbt writes `{"enforced": false, ...}`
-- where older wrote none), and never dbt's checksum of it, whose recipe changes by release
-- (the columns it covers are compared as columns). Its settings by name, not as JSON text:
-- dbt Fusion writes the same keys in another order. alias_types defaults to true.
CREATE OR REPLACE MACRO compared_contract(contract) AS
  CASE WHEN coalesce(try_cast(json_extract(contract, '$.enforced') AS BOOLEAN), false)
       THEN {'alias_types': coalesce(try_cast(json_extract(contract, '$.alias_types') AS BOOLEAN), true)} END;

-- Tags or meta as compared: none written and none set are the same (dbt Fusion writes `[]` and
-- `{}` where dbt 1.x wrote nothing).
CREATE OR REPLACE MACRO compared_labels(value) AS
  CASE WHEN value IS NULL OR CAST(value AS VARCHAR) IN ('[]', '{}', 'null') THEN NULL ELSE value END;

-- What differs between two states of a node. `f` and `t` are node_version rows (structs);
-- from_fp / to_fp their fingerprints in the two invocations; changed_macros the macros the node
-- calls directly whose definition changed (NULL for none); from_adapter / to_adapter the
-- invocations' adapters (for the default quoting). Aspects, in this order:
-- raw_code, checksum, macros, fingerprint, config, unrendered_config, materialization,
-- contract, relation, description, tags, meta, columns.
-- config, unrendered_config and columns compare the *_compared columns (what the user set,
-- without what a dbt release writes on its own); contract as compared_contract.
CREATE OR REPLACE MACRO node_change_aspects(f, t, from_fp, to_fp, changed_macros, from_adapter, to_adapter) AS [aspect FOR aspect IN [
  CASE WHEN f.raw_code IS DISTINCT FROM t.raw_code THEN 'raw_code' END,
  CASE WHEN f.checksum IS DISTINCT FROM t.checksum THEN 'checksum' END,
  CASE WHEN changed_macros IS NOT NULL THEN 'macros' END,
  CASE WHEN from_fp IS DISTINCT FROM to_fp THEN 'fingerprint' END,
  CASE WHEN f.config_compared IS DISTINCT FROM t.config_compared THEN 'config' END,
  CASE WHEN f.unrendered_config_compared IS DISTINCT FROM t.unrendered_config_compared THEN 'unrendered_config' END,
  CASE WHEN f.materialization IS DISTINCT FROM t.materialization THEN 'materialization' END,
  CASE WHEN compared_contract(f.contract) IS DISTINCT FROM compared_contract(t.contract) THEN 'contract' END,
  CASE WHEN (f.database_name, f.schema_name, f.identifier) IS DISTINCT FROM (t.database_name, t.schema_name, t.identifier)
         OR effective_quoting(f.config, from_adapter) IS DISTINCT FROM effective_quoting(t.config, to_adapter) THEN 'relation' END,
  CASE WHEN f.description IS DISTINCT FROM t.description THEN 'description' END,
  CASE WHEN compared_labels(f.tags) IS DISTINCT FROM compared_labels(t.tags) THEN 'tags' END,
  CASE WHEN compared_labels(f.meta) IS DISTINCT FROM compared_labels(t.meta) THEN 'meta' END,
  CASE WHEN f.columns_compared IS DISTINCT FROM t.columns_compared THEN 'columns' END
] IF aspect IS NOT NULL];

-- The aspect of a node's compiled SQL as dbt wrote it under target/compiled (node_sql, not the
-- manifest's compiled_code): changed when both invocations compiled the node to different files.
-- A var, an env var or the target can change what the same code compiles to.
CREATE OR REPLACE MACRO compiled_sql_aspect(from_object, to_object) AS
  CASE WHEN from_object IS NOT NULL AND to_object IS NOT NULL AND from_object <> to_object THEN ['compiled_sql'] ELSE [] END;

-- The aspects of a change, or ['other'] when the definitions differ in nothing compared: a
-- path, an fqn, a field no aspect covers. Between invocations of two dbt versions that is the
-- release reshaping the node (new fields, renamed ones), and no change at all: []. So is any
-- change, between two dbt versions, of a node dbt ships itself (package `dbt`: the docs
-- site's `doc.dbt.__overview__`), which only a release edits.
CREATE OR REPLACE MACRO change_aspects_or_other(aspects, from_version, to_version, from_dbt, to_dbt, unique_id) AS
  CASE WHEN from_dbt IS DISTINCT FROM to_dbt AND split_part(unique_id, '.', 2) = 'dbt' THEN []
       WHEN len(aspects) > 0 THEN aspects
       WHEN from_version IS DISTINCT FROM to_version AND from_dbt IS NOT DISTINCT FROM to_dbt THEN ['other']
       ELSE [] END;

-- The one kind that names a change, weightiest first:
--   semantic  the fingerprint changed along with the code (raw_code, checksum: a seed's file) or
--             a called macro, or with nothing that config or relation explains; also a code
--             change whose fingerprints are unknown (nothing shows it cosmetic)
--   relation  database, schema or identifier
--   config    config, unrendered_config, materialization or contract
--   cosmetic  the code changed, the fingerprint did not (comments, whitespace, keyword case)
--   compiled  only the compiled SQL changed (compiled_sql): the same code, the same fingerprint,
--             built something else (a var, an env var, the target); dbt's state:modified misses it
--   docs      description, meta, tags, declared columns; a doc block's text
--   other     something else in the definition (path, fqn, depends_on, ...)
-- The fingerprint covers build config and relation too; a change there alone is named config
-- or relation, not semantic, so the kind says which part of the definition moved.
CREATE OR REPLACE MACRO node_change_kind(aspects, resource_type, fingerprints_known) AS CASE
  WHEN resource_type = 'doc' AND list_has_any(aspects, ['raw_code', 'checksum', 'macros']) THEN 'docs'
  WHEN list_contains(aspects, 'fingerprint')
       AND (list_has_any(aspects, ['raw_code', 'checksum', 'macros'])
            OR NOT (list_contains(aspects, 'relation') OR list_has_any(aspects, ['config', 'unrendered_config', 'materialization', 'contract']))) THEN 'semantic'
  WHEN list_has_any(aspects, ['raw_code', 'checksum', 'macros']) AND NOT fingerprints_known THEN 'semantic'
  WHEN list_contains(aspects, 'relation') THEN 'relation'
  WHEN list_has_any(aspects, ['config', 'unrendered_config', 'materialization', 'contract']) THEN 'config'
  WHEN list_has_any(aspects, ['raw_code', 'checksum', 'macros']) THEN 'cosmetic'
  WHEN list_contains(aspects, 'compiled_sql') THEN 'compiled'
  WHEN list_has_any(aspects, ['description', 'tags', 'meta', 'columns']) THEN 'docs'
  ELSE 'other' END;

-- Whether an invocation's results are executions: false for the commands that write results
-- without building anything from a node's SQL (compile, docs generate, show, clone, ...), true
-- for build, run, test, seed, snapshot, retry and commands we do not know. The same list as
-- NON_BUILDING_COMMANDS in src/vocab/commands.ts (a test holds them equal). The command is
-- the store's, read from every signal the artifacts give (src/extract/command-name.ts).
CREATE OR REPLACE MACRO command_builds(command) AS
  NOT coalesce(command IN ('compile', 'docs generate', 'docs serve', 'show', 'clone', 'parse', 'list', 'ls', 'source freshness',
                           'generate', 'docs', 'source', 'freshness'), false);

-- The rank quantile_cont at q reads among n values sorted ascending (0-based; between two ranks
-- when not whole).
CREATE OR REPLACE MACRO quantile_rank(n, q) AS (n - 1)::DOUBLE * q::DOUBLE;

-- Whether a window of n values (below) holds the ranks quantile_cont at q reads.
CREATE OR REPLACE MACRO window_holds(w, n, q) AS
  n > 0 AND w.skip <= floor(quantile_rank(n, q)) AND ceil(quantile_rank(n, q)) < w.skip + len(w.times);

-- quantile_cont at q of n values, read from a window of them sorted ascending: `skip` values come
-- before the window's `times` (ties either side). The value at the rank, else between its two
-- nearest ranks as DuckDB interpolates them (lo x (ceil - rank) + hi x (rank - floor);
-- test/unit/store/runtime-window.test.ts holds it to the aggregate), so node_runtime's median and
-- p95 are the aggregates' own values. NULL when the window does not hold both ranks.
CREATE OR REPLACE MACRO window_quantile(w, n, q) AS
  CASE WHEN NOT window_holds(w, n, q) THEN NULL
       WHEN floor(quantile_rank(n, q)) = ceil(quantile_rank(n, q)) THEN w.times[floor(quantile_rank(n, q))::BIGINT - w.skip + 1]
       ELSE w.times[floor(quantile_rank(n, q))::BIGINT - w.skip + 1] * (ceil(quantile_rank(n, q)) - quantile_rank(n, q))
          + w.times[ceil(quantile_rank(n, q))::BIGINT - w.skip + 1] * (quantile_rank(n, q) - floor(quantile_rank(n, q))) END;

-- A window of n values with new values xs: those below it counted as skipped, those within
-- sorted in, those above left out (no rank it holds moves for them); a window that reaches the
-- lowest or the highest value takes in those beyond it too. A node's first values are its window.
CREATE OR REPLACE MACRO window_add(w, n, xs) AS
  CASE WHEN w IS NULL THEN {'skip': 0::BIGINT, 'times': list_sort(xs)}
       ELSE {'skip': w.skip + CASE WHEN w.skip = 0 THEN 0 ELSE len(list_filter(xs, x -> x < w.times[1])) END,
             'times': list_sort(list_concat(w.times, list_filter(xs, x -> (x >= w.times[1] OR w.skip = 0) AND (x <= w.times[-1] OR w.skip + len(w.times) = n))))} END;

-- The window cut to k values either side of the ranks quantile_cont at q reads among n values.
CREATE OR REPLACE MACRO window_trim(w, n, q, k) AS {
  'skip': greatest(w.skip, floor(quantile_rank(n, q))::BIGINT - k),
  'times': w.times[greatest(w.skip, floor(quantile_rank(n, q))::BIGINT - k) - w.skip + 1 : least(w.skip + len(w.times), ceil(quantile_rank(n, q))::BIGINT + k + 1) - w.skip]
};
