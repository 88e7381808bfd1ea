-- What the archive's capture records say: each `dbtattic capture` or `run` that wrote something.

-- Grain: one capture (a `capture` command, or one side of a `run`). Key: capture_id.
CREATE TABLE IF NOT EXISTS capture (
  capture_id     VARCHAR PRIMARY KEY,  -- time-ordered: sorts by capture time
  phase          VARCHAR NOT NULL,     -- pre, post, manual
  captured_at    TIMESTAMPTZ NOT NULL,
  tool_version   VARCHAR,
  branch         VARCHAR,
  context        JSON,                 -- git and catalog context of the moment
  run_argv       JSON,                 -- `dbtattic run` only: the command it ran
  run_started_at TIMESTAMPTZ,
  run_ended_at   TIMESTAMPTZ,
  run_exit_code  INTEGER,
  run_signal     VARCHAR
);
COMMENT ON TABLE capture IS 'One row per `capture` (or side of a `run`)';

-- Grain: one artifact a capture saw. Key: (capture_id, artifact_type).
CREATE TABLE IF NOT EXISTS capture_artifact (
  capture_id     VARCHAR NOT NULL,
  artifact_type  VARCHAR NOT NULL,
  status         VARCHAR NOT NULL,     -- captured, unchanged, absent, error
  invocation_id  VARCHAR,
  object_id      VARCHAR,
  size_bytes     BIGINT,
  stored_bytes   BIGINT,
  error          VARCHAR
);
COMMENT ON TABLE capture_artifact IS 'One row per artifact a capture saw, with its status';

-- Grain: one artifact or record left out of the store. kind 'unreadable': the archive holds the
-- artifact intact but this dbtattic cannot read it (a schema version newer than it knows); a
-- rebuild after upgrading reads it. kind 'damaged': the archive's bytes are missing or corrupt
-- (a chunk, a file index, a record); `dbtattic verify --repair` or capturing the original again
-- repairs it, and the next read re-ingests. invocation_id and artifact_type are null when the
-- damaged thing names none (a capture record); archive_key names a damaged record.
-- Key: (invocation_id, object_id, archive_key).
CREATE TABLE IF NOT EXISTS ingest_problem (
  invocation_id VARCHAR,
  artifact_type VARCHAR,
  object_id     VARCHAR,
  kind          VARCHAR NOT NULL,
  archive_key   VARCHAR,
  message       VARCHAR NOT NULL
);
COMMENT ON TABLE ingest_problem IS 'One row per artifact, output or record left out of the store: `kind` `unreadable` (the archive keeps it intact, say a schema newer than this dbtattic) or `damaged` (its bytes in the archive are missing or corrupt; `archive_key` names a damaged record); `artifact_type` is the artifact, or `sql`/`log` for an output';
COMMENT ON COLUMN ingest_problem.kind IS '`unreadable` (the archive keeps it intact, say a schema newer than this dbtattic) or `damaged` (its bytes in the archive are missing or corrupt)';
COMMENT ON COLUMN ingest_problem.archive_key IS 'The damaged record, when a record is what is damaged';
COMMENT ON COLUMN ingest_problem.artifact_type IS 'The artifact, or `sql`/`log` for an output';
