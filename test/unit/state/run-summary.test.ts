import { describe, expect, it } from 'vitest';
import { FAILED_STATUSES, isSuccess, readRunSummary } from '../../../src/state/index.js';
import { file, newArchive } from '../../helpers/archive-builder.js';

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

  it('calls a run a success when it has results and none failed', () => {
    const summary = { command: 'build', target: null, byStatus: {} };
    expect(isSuccess({ ...summary, total: 3, failed: 0 })).toBe(true);
    expect(isSuccess({ ...summary, total: 0, failed: 0 })).toBe(false);
    expect(isSuccess({ ...summary, total: 3, failed: 1 })).toBe(false);
  });
});
