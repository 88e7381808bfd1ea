-- What dbt wrote besides artifacts, from the archive's output records (src/archive/outputs.ts).

-- Grain: one output record of an invocation (its SQL tree or its slice of dbt.log). Key:
-- (invocation_id, output, object_id). `authoritative`: the one that counts (the newest tree; the
-- largest log slice, since a log only grows while dbt writes it).
CREATE TABLE IF NOT EXISTS invocation_output (
  invocation_id  VARCHAR NOT NULL,
  output         VARCHAR NOT NULL,  -- sql, log
  object_id      VARCHAR NOT NULL,  -- the tree document or the log slice in the archive
  size_bytes     BIGINT,
  entries        BIGINT,            -- sql: files in the tree; log: lines in the slice
  files_bytes    BIGINT,            -- sql: bytes of the files the tree lists
  log_format     VARCHAR,           -- log: json, text or mixed
  attributed_by  VARCHAR,           -- sql: run, invocation_started_at or generated_at (whose start bounded the files)
  captured_at    TIMESTAMPTZ,
  capture_id     VARCHAR,
  authoritative  BOOLEAN NOT NULL
);
COMMENT ON TABLE invocation_output IS 'One row per output record of an invocation: its SQL tree or log slice, object id, size, entries, and whether it is the one that counts';

-- Grain: one SQL file an invocation wrote under target/ (its authoritative tree). Key:
-- (invocation_id, kind, path). unique_id: the node of the invocation's manifest whose
-- compiled_path/build_path is that file (NULL when none is: no manifest, or a file dbt writes for
-- no node). Not the manifest's compiled_code: this is the file dbt wrote and, for `run`, executed.
CREATE TABLE IF NOT EXISTS node_sql (
  invocation_id  VARCHAR NOT NULL,
  unique_id      VARCHAR,
  kind           VARCHAR NOT NULL,  -- compiled (target/compiled), run (target/run)
  path           VARCHAR NOT NULL,  -- relative to target/: compiled/<package>/<original_file_path>
  object_id      VARCHAR NOT NULL,  -- the file's bytes in the archive
  size_bytes     BIGINT NOT NULL
);
COMMENT ON TABLE node_sql IS 'One row per SQL file an invocation wrote: `unique_id` (the node whose compiled_path/build_path it is), `kind` (`compiled` or `run`), path, object id, size. From target/ files, not the manifest''s `compiled_code`';
COMMENT ON COLUMN node_sql.unique_id IS 'The node whose compiled_path/build_path the file is';
COMMENT ON COLUMN node_sql.kind IS '`compiled` (target/compiled) or `run` (target/run)';
