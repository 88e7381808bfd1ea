import { describe, expect, it } from 'vitest';
import { criticalPath, peakConcurrency, runTimeline, type TimedNode } from '../../../src/report/timeline.js';

/** Four nodes on two threads: a → b → d and a → c → d, where c is the slow branch. */
const at = (s: number): number => Date.UTC(2026, 0, 1) + s * 1000;
const node = (unique_id: string, thread: string, start: number, end: number): TimedNode => ({
  unique_id,
  status: 'success',
  thread,
  start: at(start),
  end: at(end),
});
const NODES = [node('a', 'T1', 0, 2), node('b', 'T1', 2, 3), node('c', 'T2', 2, 7), node('d', 'T1', 7, 8)];
const EDGES: [string, string][] = [
  ['b', 'a'],
  ['c', 'a'],
  ['d', 'b'],
  ['d', 'c'],
];

describe('runTimeline', () => {
  it('the critical path follows the slowest chain of dependencies and sums its durations', () => {
    expect(criticalPath(NODES, EDGES)).toEqual({ path: ['a', 'c', 'd'], seconds: 8 });
  });

  it('ignores edges to nodes the run did not execute', () => {
    expect(criticalPath(NODES.slice(0, 2), [...EDGES, ['a', 'elsewhere']])).toEqual({ path: ['a', 'b'], seconds: 3 });
  });

  it('counts a node that starts as another ends as not overlapping it', () => {
    expect(peakConcurrency(NODES)).toBe(2);
    expect(peakConcurrency([NODES[0]!, NODES[1]!])).toBe(1);
  });

  it("gives dbt's model-timing tiles and bars relative to the first start, one row per thread", () => {
    const timeline = runTimeline([...NODES, { unique_id: 'skipped', status: 'skipped', thread: 'T1', start: null, end: null }], EDGES);
    expect(timeline.tiles).toEqual({ wall_s: 8, critical_s: 8, peak_concurrency: 2, longest: { unique_id: 'c', seconds: 5 } });
    expect(timeline.threads).toEqual(['T1', 'T2']);
    expect(timeline.bars).toContainEqual(['c', 1, 2000, 5000, 'success']);
    expect(timeline.bars.map((b) => b[0])).not.toContain('skipped');
  });
});
