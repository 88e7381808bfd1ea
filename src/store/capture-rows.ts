import type { DuckDBConnection } from '@duckdb/node-api';
import type { CaptureRecord, CapturedArtifact, RunInfo } from '../archive/index.js';
import { isArtifactType, isCapturePhase } from '../vocab/index.js';

export async function writeCaptureRows(connection: DuckDBConnection, captures: readonly CaptureRecord[]): Promise<void> {
  for (const c of captures) {
    await connection.run('INSERT OR IGNORE INTO capture VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)', [
      c.capture_id, c.phase, c.captured_at, c.tool_version, c.branch, JSON.stringify(c.context),
      c.run ? JSON.stringify(c.run.argv) : null, c.run?.started_at ?? null, c.run?.ended_at ?? null, c.run?.exit_code ?? null, c.run?.signal ?? null,
    ]);
    for (const a of c.artifacts) {
      await connection.run('INSERT INTO capture_artifact VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
        c.capture_id, a.artifact, a.status, a.invocation_id, a.sha256, a.size, a.stored_bytes, a.error ?? null,
      ]);
    }
  }
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
