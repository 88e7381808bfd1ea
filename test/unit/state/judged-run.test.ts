import { describe, expect, it } from 'vitest';
import { FAILED_STATUSES, isSuccess, readRunSummary } from '../../../src/state/index.js';
import { putBlob } from '../../../src/archive/index.js';
import { file, newArchive } from '../../helpers/archive-builder.js';
import { syntheticRunResults } from '../../helpers/synthetic-artifacts.js';

describe('readRunSummary and isSuccess', () => {
  it('counts results by status and counts error, fail, runtime error and partial success as failed', async () => {
    expect(FAILED_STATUSES).toEqual(['error', 'fail', 'runtime error', 'partial success']);
    const backend = newArchive();
    const statuses = ['success', 'pass', 'warn', 'skipped', 'error', 'fail', 'runtime error', 'partial success', 'Pass', 'no-op'];
    const records = await file(backend, { invocationId: 'inv', statuses, command: 'build', target: 'prod' });
    const summary = await readRunSummary(backend, records.run_results!);
    expect(summary).toEqual({
      command: 'build',
      target: 'prod',
      total: 10,
      failed: 4,
      byStatus: { success: 1, pass: 2, warn: 1, skipped: 1, error: 1, fail: 1, 'runtime error': 1, 'partial success': 1, 'no-op': 1 },
    });
    expect(isSuccess(summary)).toBe(false);
  });

  it('counts a result without a status as unknown, and reads run results of a schema newer than it knows', async () => {
    const backend = newArchive();
    const records = await file(backend, { invocationId: 'inv', statuses: [null as unknown as string, 'success'] });
    expect((await readRunSummary(backend, records.run_results!)).byStatus).toEqual({ unknown: 1, success: 1 });
    const newer = JSON.parse(syntheticRunResults({ invocationId: 'next', statuses: ['success'] })) as { metadata: { dbt_schema_version: string } };
    newer.metadata.dbt_schema_version = 'https://schemas.getdbt.com/dbt/run-results/v99.json';
    const put = await putBlob(backend, Buffer.from(JSON.stringify(newer)));
    expect(await readRunSummary(backend, { ...records.run_results!, invocation_id: 'next', sha256: put.id })).toMatchObject({ total: 1, failed: 0 });
  });

  it('calls a run a success when it has results and none failed', () => {
    const summary = { command: 'build', target: null, byStatus: {} };
    expect(isSuccess({ ...summary, total: 3, failed: 0 })).toBe(true);
    expect(isSuccess({ ...summary, total: 0, failed: 0 })).toBe(false);
    expect(isSuccess({ ...summary, total: 3, failed: 1 })).toBe(false);
  });
});
