import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectReport } from '../../../src/report/collect.js';
import { corpusCases, corpusTargetDirs } from '../../helpers/corpus.js';
import { buildCorpusStore } from '../../helpers/corpus-store.js';

/**
 * Issue 44, item 1: a run's page said "31.7 s wall clock, 39.7 s critical path", a failed model
 * with `timing: []` (no bar, no place in the wall clock) adding its execution_time to the path.
 * On the corpus runs where dbt timed some nodes and not others, the bars, the wall clock and
 * the critical path are checked against run_results' own timing arrays.
 */
interface Timing {
  name: string;
  started_at?: string | null;
  completed_at?: string | null;
}
interface Result {
  unique_id: string;
  execution_time: number;
  timing?: Timing[];
}
interface RunResults {
  metadata: { invocation_id: string };
  results: Result[];
}

const read = (dir: string): RunResults => JSON.parse(readFileSync(path.join(dir, 'run_results.json'), 'utf8')) as RunResults;

/** Runs with a manifest beside them (the path follows its edges) and a node that ran without timing. */
function untimedRuns(): string[] {
  return corpusTargetDirs().filter((dir) => {
    if (!existsSync(path.join(dir, 'manifest.json')) || !existsSync(path.join(dir, 'run_results.json'))) return false;
    try {
      return read(dir).results.some((r) => !r.timing?.length && r.execution_time > 0);
    } catch {
      return false;
    }
  });
}

/** The execute span dbt recorded, in ms since the epoch. */
function executeSpan(result: Result): [number, number] | null {
  const execute = result.timing?.find((t) => t.name === 'execute');
  if (!execute?.started_at || !execute.completed_at) return null;
  return [
    Date.parse(execute.started_at.endsWith('Z') ? execute.started_at : `${execute.started_at}Z`),
    Date.parse(execute.completed_at.endsWith('Z') ? execute.completed_at : `${execute.completed_at}Z`),
  ];
}

describe('a run timeline of nodes with and without timing', () => {
  it.each(corpusCases(untimedRuns, 'skipped: no corpus'))('%s: the critical path is made of bars and fits in the wall clock', async (dir) => {
    if (dir.startsWith('skipped')) return;
    const doc = read(dir);
    const spans = new Map(
      doc.results.flatMap((r) => {
        const span = executeSpan(r);
        return span ? [[r.unique_id, span] as const] : [];
      }),
    );
    const untimed = doc.results.filter((r) => !spans.has(r.unique_id)).map((r) => r.unique_id);
    expect(untimed.length).toBeGreaterThan(0);
    const wall = (Math.max(...[...spans.values()].map((s) => s[1])) - Math.min(...[...spans.values()].map((s) => s[0]))) / 1000;
    const store = await buildCorpusStore([dir]);
    try {
      const data = await collectReport(store.db, { scope: {}, scopeText: 'all', toolVersion: 'test', now: new Date(), dataBudget: 50_000_000 });
      const timeline = data.details[doc.metadata.invocation_id]!.timeline!;
      expect(timeline.tiles.wall_s).toBeCloseTo(wall, 3);
      expect(timeline.critical.length).toBeGreaterThan(0);
      for (const id of timeline.critical) expect(spans.has(id), `${id} is on the path without a bar`).toBe(true);
      const along = timeline.critical.reduce((sum, id) => sum + (spans.get(id)![1] - spans.get(id)![0]) / 1000, 0);
      expect(timeline.tiles.critical_s).toBeCloseTo(along, 3);
      expect(timeline.tiles.critical_s).toBeLessThanOrEqual(timeline.tiles.wall_s + 1e-9);
      expect(timeline.bars.map((b) => b[0]).sort()).toEqual([...spans.keys()].sort());
      expect(spans.has(timeline.tiles.longest!.unique_id)).toBe(true);
      expect(timeline.untimed).toBe(untimed.length);
    } finally {
      store.close();
    }
  });
});
