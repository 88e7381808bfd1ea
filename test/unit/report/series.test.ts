import { describe, expect, it } from 'vitest';
import { choosePoints, nodeSeries, pointOfSeq, regressions } from '../../../src/report/series.js';

describe('choosePoints', () => {
  it('keeps the newest runs alone and merges older ones into buckets', () => {
    const runs = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    expect(choosePoints(runs, 10, 1)).toHaveLength(10);
    expect(choosePoints(runs, 3, 4)).toEqual([
      { run: 0, runs: 4 },
      { run: 4, runs: 3 },
      { run: 7, runs: 1 },
      { run: 8, runs: 1 },
      { run: 9, runs: 1 },
    ]);
  });
});

describe('nodeSeries', () => {
  const runs = [0, 1, 2, 3];
  const seqOf = (run: number): number => run + 10;

  it('shows a bucket as the median of its completed runs and its worst status', () => {
    const points = choosePoints(runs, 1, 3);
    const series = nodeSeries(
      { unique_id: 'm', seqs: [10, 11, 12, 13], statuses: ['success', 'error', 'success', 'success'], ms: [100, 5, 300, 50], rows_affected: [1, null, 2, 3] },
      pointOfSeq(points, runs, seqOf),
      points.length,
    );
    expect(series).toEqual({ ms: [200, 50], st: 'es', rows: [3, 3], reg: [] });
  });

  it('marks where the node did not run, and leaves rows out when the adapter reports none', () => {
    const points = choosePoints(runs, 4, 1);
    const series = nodeSeries(
      { unique_id: 't', seqs: [11, 13], statuses: ['fail', 'skipped'], ms: [20, 0], rows_affected: [null, null] },
      pointOfSeq(points, runs, seqOf),
      points.length,
    );
    expect(series).toEqual({ ms: [null, 20, null, null], st: '-f-k', reg: [] });
  });
});

describe('regressions', () => {
  it("applies v_runtime_regressions' rule at each point: 3 earlier runs, 1.5 times their median, over 1 s slower", () => {
    expect(regressions([1000, 1000, 1000, 2600])).toEqual([3]);
    expect(regressions([1000, 1000, 2600])).toEqual([]); // two earlier runs only
    expect(regressions([1000, 1000, 1000, 1900])).toEqual([]); // under 1 s slower
    expect(regressions([3000, 3000, 3000, 4400])).toEqual([]); // under 1.5 times
  });
});
