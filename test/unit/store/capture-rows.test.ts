import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureRecord } from '../../../src/archive/index.js';
import { readCapturesOf, writeCaptureRows } from '../../../src/store/ingest/capture-rows.js';
import { inTransaction, openDatabase, type Database } from '../../../src/store/db/database.js';
import { applySchema } from '../../../src/store/schema.js';
import { ARTIFACT_TYPES } from '../../../src/vocab/index.js';

const CAPTURES = 1_000;

/** A capture of run `i`: a manifest and run results captured, the other artifacts absent. */
function captureOf(i: number): CaptureRecord {
  const invocation = `b15c0000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  return {
    kind: 'capture',
    format: 1,
    capture_id: `001a2375${String(i).padStart(5, '0')}-2b7b15bbce7c`,
    phase: i % 2 === 0 ? 'pre' : 'post',
    captured_at: new Date(Date.UTC(2026, 11, 2, 0, 0, i)).toISOString(),
    tool_version: '0.1.0',
    branch: i % 3 === 0 ? null : 'main',
    context: { git: { sha: null }, run: i },
    run:
      i % 2 === 0
        ? null
        : {
            argv: ['dbt', 'build'],
            started_at: '2026-12-02T00:00:00.000Z',
            ended_at: '2026-12-02T00:01:00.000Z',
            exit_code: i % 5 === 0 ? 1 : 0,
            signal: null,
          },
    artifacts: ARTIFACT_TYPES.map((artifact, k) =>
      k < 2
        ? {
            artifact,
            status: 'captured',
            path: `/p/target/${artifact}.json`,
            invocation_id: invocation,
            sha256: `${String(i).padStart(4, '0')}${'a'.repeat(60)}`,
            size: 1000 + i,
            stored_bytes: 100 + k,
          }
        : { artifact, status: 'absent', path: `/p/target/${artifact}.json`, invocation_id: null, sha256: null, size: null, stored_bytes: 0 },
    ),
  };
}

describe('the rows of capture records', () => {
  let root: string;
  let db: Database;
  const captures = Array.from({ length: CAPTURES }, (_, i) => captureOf(i + 1));

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-capture-rows-'));
    db = await openDatabase(path.join(root, 'store.duckdb'), 'write');
    await applySchema(db.connection);
  });
  afterAll(() => {
    db.close();
    rmSync(root, { recursive: true, force: true });
  });

  const count = async (sql: string) => Number((await db.connection.runAndReadAll(sql)).getRows()[0]?.[0]);

  // A statement per row kept ~300 KB each until the commit: 784 captures filled the writer's memory.
  it('are written for a thousand captures in one transaction, within the writer memory', async () => {
    await inTransaction(db.connection, () => writeCaptureRows(db.connection, captures));
    expect(await count('SELECT count(*) FROM capture')).toBe(CAPTURES);
    expect(await count('SELECT count(*) FROM capture_artifact')).toBe(CAPTURES * ARTIFACT_TYPES.length);
  });

  it('read back as the records say, column by column', async () => {
    for (const i of [1, 2, 15, CAPTURES]) {
      const record = captures[i - 1]!;
      const [read] = await readCapturesOf(db.connection, record.artifacts[0]!.invocation_id!);
      expect(read?.capture_id).toBe(record.capture_id);
      expect(read?.phase).toBe(record.phase);
      expect(Date.parse(read!.captured_at)).toBe(Date.parse(record.captured_at));
      expect(read?.branch).toBe(record.branch);
      expect(read?.context).toEqual(record.context);
      expect(read?.run?.exit_code ?? null).toBe(record.run?.exit_code ?? null);
      expect(read?.run?.argv ?? null).toEqual(record.run?.argv ?? null);
      expect(read?.artifacts.map((a) => [a.artifact, a.status, a.sha256])).toEqual(record.artifacts.map((a) => [a.artifact, a.status, a.sha256]));
    }
    const sizes = (
      await db.connection.runAndReadAll("SELECT size_bytes, stored_bytes FROM capture_artifact WHERE capture_id = $1 AND artifact_type = 'run_results'", [
        captures[9]!.capture_id,
      ])
    ).getRows()[0];
    expect(sizes?.map(Number)).toEqual([1010, 101]);
  });

  it('leave a capture stored once, with its artifacts, when it is written again or listed twice', async () => {
    await inTransaction(db.connection, () => writeCaptureRows(db.connection, [captures[0]!, captureOf(CAPTURES + 1), captureOf(CAPTURES + 1)]));
    expect(await count('SELECT count(*) FROM capture')).toBe(CAPTURES + 1);
    expect(await count('SELECT count(*) FROM capture_artifact')).toBe((CAPTURES + 1) * ARTIFACT_TYPES.length);
  });
});
