import type { DuckDBConnection } from '@duckdb/node-api';
import type { CaptureRecord, CapturedArtifact, RunInfo } from '../../archive/index.js';
import { isArtifactType, isCapturePhase } from '../../vocab/index.js';
import { RowAppender } from './append.js';
import { duckdb } from '../duckdb.js';

/**
 * The rows of the captures the store does not hold yet, through the Appender (append.ts). Those
 * it holds are left out first, not by `INSERT OR IGNORE`: a statement per capture cost a
 * millisecond each, and in one transaction DuckDB kept about 300 KB per such statement until the
 * commit, so the catch-up of 784 captures (a rebuild, a fresh runner) exhausted the writer's 256 MB.
 */
export async function writeCaptureRows(connection: DuckDBConnection, captures: readonly CaptureRecord[]): Promise<void> {
  const stored = await storedCaptureIds(
    connection,
    captures.map((c) => c.capture_id),
  );
  const fresh = [...new Map(captures.filter((c) => !stored.has(c.capture_id)).map((c) => [c.capture_id, c])).values()];
  if (fresh.length === 0) return;
  await appendAll(connection, 'capture', fresh.map(captureRow));
  await appendAll(
    connection,
    'capture_artifact',
    fresh.flatMap((c) => c.artifacts.map((a) => artifactRow(c, a))),
  );
}

async function storedCaptureIds(connection: DuckDBConnection, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const reader = await connection.runAndReadAll(
    'SELECT capture_id FROM capture WHERE capture_id IN (SELECT unnest($1::VARCHAR[]))',
    [duckdb.listValue([...ids])],
    [duckdb.LIST(duckdb.VARCHAR)],
  );
  return new Set(reader.getRows().map(([id]) => String(id)));
}

/** Values in the table's column order (schema/001-capture-tables.sql). */
type Row = (string | number | null)[];

function captureRow(c: CaptureRecord): Row {
  return [
    c.capture_id,
    c.phase,
    c.captured_at,
    c.tool_version,
    c.branch,
    JSON.stringify(c.context),
    c.run ? JSON.stringify(c.run.argv) : null,
    c.run?.started_at ?? null,
    c.run?.ended_at ?? null,
    c.run?.exit_code ?? null,
    c.run?.signal ?? null,
  ];
}

function artifactRow(c: CaptureRecord, a: CapturedArtifact): Row {
  return [c.capture_id, a.artifact, a.status, a.invocation_id, a.sha256, a.size, a.stored_bytes, a.error ?? null];
}

async function appendAll(connection: DuckDBConnection, table: string, rows: readonly Row[]): Promise<void> {
  const appender = await RowAppender.open(connection, table);
  try {
    for (const row of rows) appender.append(row);
  } catch (error) {
    appender.discard();
    throw error;
  }
  appender.close();
}

/** The capture records (as stored) that saw any artifact of the invocation. */
export async function readCapturesOf(connection: DuckDBConnection, invocationId: string): Promise<CaptureRecord[]> {
  const reader = await connection.runAndReadAll(
    `SELECT c.capture_id, c.phase, c.captured_at::VARCHAR AS captured_at, c.tool_version, c.branch, c.context::VARCHAR AS context,
            c.run_argv::VARCHAR AS run_argv, c.run_started_at::VARCHAR AS run_started_at, c.run_ended_at::VARCHAR AS run_ended_at, c.run_exit_code, c.run_signal,
            (SELECT list({artifact: a.artifact_type, status: a.status, invocation_id: a.invocation_id, sha256: a.object_id}) FROM capture_artifact a WHERE a.capture_id = c.capture_id)::JSON::VARCHAR AS artifacts
     FROM capture c WHERE c.capture_id IN (SELECT capture_id FROM capture_artifact WHERE invocation_id = $1) ORDER BY c.capture_id`,
    [invocationId],
  );
  return reader.getRowObjectsJson().map((row) => ({
    kind: 'capture',
    format: 1,
    capture_id: String(row.capture_id),
    phase: isCapturePhase(String(row.phase)) ? (String(row.phase) as CaptureRecord['phase']) : 'manual',
    captured_at: String(row.captured_at),
    tool_version: String(row.tool_version ?? ''),
    branch: typeof row.branch === 'string' ? row.branch : null,
    context: JSON.parse(String(row.context ?? '{}')) as Record<string, unknown>,
    run: runOf(row),
    artifacts: (JSON.parse(String(row.artifacts ?? '[]')) as CapturedArtifact[]).filter((a) => isArtifactType(a.artifact)),
  }));
}

function runOf(row: Record<string, unknown>): RunInfo | null {
  if (row.run_argv === null || row.run_argv === undefined) return null;
  return {
    argv: JSON.parse(String(row.run_argv)) as string[],
    started_at: String(row.run_started_at),
    ended_at: String(row.run_ended_at),
    exit_code: Number(row.run_exit_code),
    signal: typeof row.run_signal === 'string' ? row.run_signal : null,
  };
}
