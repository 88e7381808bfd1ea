import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayedHistory, type ReplayedHistory } from '../helpers/replay.js';

/**
 * `dbtattic export` on the fixture history, through the CLI: the dataset's run results are the
 * rows `dbtattic query` gives, a second export writes nothing, and `forget` is carried.
 */
describe('dbtattic export', () => {
  let history: ReplayedHistory;
  let out: string;
  beforeAll(async () => {
    history = await replayedHistory();
    out = path.join(history.workDir, 'dataset');
  }, 300_000);
  afterAll(() => history?.remove());

  const rows = (sql: string) => history.json<Record<string, unknown>[]>(['query', '--json', sql]);
  const fromDataset = async (sql: string) => {
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const connection = await (await DuckDBInstance.create(':memory:')).connect();
    return (await connection.runAndReadAll(sql.replaceAll('DATASET', out))).getRowObjectsJson();
  };

  it('exports, then finds nothing new, then drops what forget removed', async () => {
    const probe = await history.cli(['export', '--to', out, '--json']);
    expect(probe.exitCode, probe.stdout + probe.stderr).toBe(0);
    const first = JSON.parse(probe.stdout) as { written: number; unchanged: number };
    expect(first.written).toBeGreaterThan(0);
    const expected = await rows('SELECT invocation_id, unique_id, status FROM v_run_history ORDER BY ALL');
    expect(await fromDataset(`SELECT invocation_id, unique_id, status FROM read_parquet('DATASET/run_result/**/*.parquet') ORDER BY ALL`)).toEqual(expected);
    expect(await history.json(['export', '--to', out, '--json'])).toMatchObject({ written: 0, deleted: 0, unchanged: first.written });

    const forget = await history.cli(['forget', '--keep-last', '2', '--json']);
    expect(forget.exitCode, forget.stderr).toBe(0);
    const after = await history.json<{ deleted: number }>(['export', '--to', out, '--json']);
    expect(after.deleted).toBeGreaterThan(0);
    expect(await fromDataset(`SELECT DISTINCT invocation_id FROM read_parquet('DATASET/invocation/**/*.parquet') ORDER BY ALL`)).toEqual(
      await rows('SELECT invocation_id FROM invocation ORDER BY ALL'),
    );
  });
});
