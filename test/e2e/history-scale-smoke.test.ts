import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchHistoryScale, formatTable, type HistoryScaleResult, type ReadingRow } from '../../bench/history-scale.mjs';
import { hasCorpus } from '../helpers/corpus.js';

/**
 * bench/history-scale.mjs at small sizes, so that it cannot rot: it builds, captures with the
 * built CLI, measures every view and command, and the counts it reports are the counts read
 * here from the JSON it generated. Timings and budgets are not checked (no timed tests).
 */

const NODES = 200;
const RUNS = 5;

interface Result {
  unique_id: string;
  status: string;
  execution_time: number;
}
interface Manifest {
  nodes: Record<string, { resource_type: string; depends_on?: { nodes?: string[] }; raw_code?: string }>;
  disabled?: Record<string, unknown[]>;
  [section: string]: unknown;
}

/** The sections whose entries dbt and dbtattic count as nodes (the `node` view's rows). */
const NODE_SECTIONS = ['nodes', 'sources', 'exposures', 'metrics', 'semantic_models', 'saved_queries', 'unit_tests', 'groups', 'functions', 'docs'];

let dir: string;
let result: HistoryScaleResult;
let runs: { results: Result[]; manifest: Manifest }[];

const row = (question: string): ReadingRow => {
  const found = result.reading.find((r) => r.question === question);
  if (!found) throw new Error(`no row for ${question}`);
  return found;
};
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

describe.skipIf(!hasCorpus)('bench/history-scale.mjs at small sizes', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'attic-history-smoke-'));
    result = await benchHistoryScale({ nodes: NODES, runs: RUNS, dir, keepManifests: true, repeat: 1 });
    const runsDir = path.join(dir, 'runs');
    runs = readdirSync(runsDir)
      .sort()
      .map((run) => ({
        results: (JSON.parse(readFileSync(path.join(runsDir, run, 'run_results.json'), 'utf8')) as { results: Result[] }).results,
        manifest: JSON.parse(readFileSync(path.join(runsDir, run, 'manifest.json'), 'utf8')) as Manifest,
      }));
  }, 600_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('measures every view of the schema and every command, each answering', () => {
    const views = [...readFileSync(path.resolve('schema/002-views.sql'), 'utf8').matchAll(/CREATE OR REPLACE VIEW (\w+)/g)].map((m) => m[1]);
    expect(views.length).toBeGreaterThan(5);
    for (const view of views) expect(row(view!).status).toBe(0);
    for (const command of ['history', 'inspect', 'diff', 'state --last-success', 'state --last-success, none matching'])
      expect(row(command).ms).toBeGreaterThan(0);
    expect(formatTable(result)).toContain('| v_node_changes |');
  });

  it('captured every run it generated, with every result', () => {
    expect(runs).toHaveLength(RUNS);
    expect(row('v_invocation_sequence').count).toBe(RUNS);
    expect(row('v_run_history').count).toBe(runs.reduce((n, run) => n + run.results.length, 0));
    expect(row('v_run_history').peer_count).toBe(row('v_run_history').count);
    expect(Object.keys(runs[0]!.manifest.nodes)).toHaveLength(NODES);
  });

  it('counts in the node view every node entry of every manifest', () => {
    const entries = runs.map(({ manifest }) => {
      const sections = NODE_SECTIONS.reduce((n, key) => n + Object.keys((manifest[key] as object | undefined) ?? {}).length, 0);
      return sections + Object.values(manifest.disabled ?? {}).reduce((n, list) => n + list.length, 0);
    });
    expect(row('node').count).toBe(entries.reduce((a, b) => a + b, 0));
  });

  it('counts the tests with history, the nodes with runtimes and the edges of the newest manifest', () => {
    const all = runs.flatMap((run) => run.results);
    expect(row('v_test_history').count).toBe(new Set(all.filter((r) => r.unique_id.startsWith('test.')).map((r) => r.unique_id)).size);
    expect(row('v_node_runtime').count).toBe(new Set(all.map((r) => r.unique_id)).size);
    const newest = runs.at(-1)!.manifest;
    const edges = Object.values(newest.nodes).reduce((n, node) => n + (node.depends_on?.nodes?.length ?? 0), 0);
    expect(edges).toBeGreaterThan(0);
    expect(row('v_latest_edges').count).toBe(edges);
    expect(row('v_latest_edges').peer_count).toBe(edges);
  });

  it('counts as changes the models whose code changed from one run to the next', () => {
    let changes = 0;
    for (let k = 1; k < runs.length; k++) {
      const before = runs[k - 1]!.manifest.nodes;
      for (const [id, node] of Object.entries(runs[k]!.manifest.nodes)) if (before[id]?.raw_code !== node.raw_code) changes++;
    }
    expect(changes).toBeGreaterThanOrEqual(RUNS - 1);
    expect(row('v_node_changes').count).toBe(changes);
  });

  it('finds the runtime regressions the results show: last run over 1.5x and 1 s above the median of the runs before', () => {
    const byNode = new Map<string, number[]>();
    for (const run of runs) for (const r of run.results) byNode.set(r.unique_id, [...(byNode.get(r.unique_id) ?? []), r.execution_time]);
    const regressed = [...byNode.values()].filter((times) => {
      const last = times.at(-1)!;
      const baseline = median(times.slice(-11, -1));
      return times.length - 1 >= 3 && last > 1.5 * baseline && last - baseline > 1;
    });
    expect(regressed.length).toBeGreaterThan(0);
    expect(row('v_runtime_regressions').count).toBe(regressed.length);
  });

  it('reports the store and archive sizes as they are on disk', () => {
    const archive = readdirSync(path.join(dir, 'store', 'archive'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .reduce((n, e) => n + statSync(path.join(e.parentPath, e.name)).size, 0);
    expect(result.sizes.archive_bytes).toBe(archive);
    expect(result.sizes.rebuilt_store_bytes).toBe(statSync(path.join(dir, 'store', 'store.duckdb')).size);
    expect(result.sizes.tar_czf_bytes).toBeGreaterThan(0);
  });
});
