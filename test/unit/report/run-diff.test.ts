import { describe, expect, it } from 'vitest';
import type { ReportRun } from '../../../src/report/data.js';
import { runDiffs, type RunFacts } from '../../../src/report/run-diff.js';

function facts(id: string, seq: number, hasManifest: boolean): RunFacts {
  const run: ReportRun = {
    id,
    at: null,
    command: 'build',
    target: 'dev',
    branch: 'main',
    sha: null,
    elapsed_s: null,
    outcome: 'ok',
    counts: {},
    failed: 0,
    exit: 0,
  };
  return { run, seq, hasManifest };
}

/** A run page's "changed since the previous run" must not say "no node changed" when it cannot know (issue 7, item 3). */
describe('run diffs in the report', () => {
  it('says node changes are unknown for a run that archived no manifest, and compares the next one with the last run that had one', () => {
    const runs = [facts('a', 1, true), facts('b', 2, false), facts('c', 3, true)];
    const diffs = runDiffs(
      runs,
      [],
      [{ unique_id: 'model.p.x', seqs: [1, 2, 3], statuses: ['success', 'error', 'success'], ms: [1, 1, 1], rows_affected: [null, null, null] }],
    );
    expect(diffs.get('a')).toBeUndefined();
    expect(diffs.get('b')?.nodes_unknown).toMatch(/no manifest/);
    expect(diffs.get('b')?.statuses).toEqual([{ id: 'model.p.x', from: 'success', to: 'error' }]);
    expect(diffs.get('c')?.previous).toBe('a');
    expect(diffs.get('c')?.nodes_unknown).toBeUndefined();
  });
});
