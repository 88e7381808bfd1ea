import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { applyForget } from '../../../src/retention/index.js';
import { openDatabase, rebuildStore, syncStore } from '../../../src/store/index.js';
import { plainResult } from '../../../src/store/db/plain-rows.js';
import { file, type Filing } from '../../helpers/archive-builder.js';
import { syntheticManifest, syntheticRunResults, syntheticTestId, type SyntheticTest } from '../../helpers/synthetic-artifacts.js';
import { dumpStore, expectSameRows } from '../../helpers/store-dump.js';

/**
 * test_history, test_run_state, test_definition and node_runtime are derived when invocations
 * are ingested, adding a new run to the counts when it is later than every run counted and
 * deriving them again otherwise, so v_test_history and v_node_runtime must come out as their
 * rules say whatever order artifacts arrive in, and after a forget. A < B < C < D < E by generated_at; two tests, t0 on m0 and t1 on
 * m1, where m1's code changes in B and D (its SQL, so its fingerprint too: a comment would not). E is a manifest alone, where t0 moved to m1. Filed in
 * the order A, B, E, D (each later than every run counted), then C late, then B and E forgotten.
 * The models take other times in each run, and m1 errors in D. The expected rows are worked
 * out from the artifacts' JSON: counts, last status and runtimes over the results in
 * generated_at order; flaky from the code of the test and of its parents in each
 * run's own manifest; the tested node from the latest manifest that has the test.
 */
type Node = { raw_code: string; depends_on: { nodes: string[] }; attached_node?: string };
type Manifest = { nodes: Record<string, Node> };
type RunResults = { results: { unique_id: string; status: string; execution_time: number }[] };

const at = (hour: number): string => `2024-06-01T${String(hour).padStart(2, '0')}:00:00Z`;
const tests = (t0: [number, string?], t1: [number, string?]): SyntheticTest[] => [
  { name: 't0', on: t0[0], status: t0[1] },
  { name: 't1', on: t1[0], status: t1[1] },
];
const filing = (letter: string, hour: number, captured: number, more: Partial<Filing>): Filing => ({
  invocationId: `${letter.repeat(8)}-0000-4000-8000-00000000000${letter}`,
  generatedAt: at(hour),
  capturedAt: at(captured),
  statuses: ['success', 'success'],
  ...more,
});
const A = filing('a', 10, 15, { modelCode: { 1: 'select 1 as id' }, times: [1.5, 2], tests: tests([0, 'pass'], [1, 'pass']) });
const B = filing('b', 11, 16, { modelCode: { 1: 'select 2 as id' }, times: [3.25, 0.5], tests: tests([0, 'fail'], [1, 'fail']) });
const C = filing('c', 12, 19, { modelCode: { 1: 'select 2 as id' }, times: [2.5, 4.125], tests: tests([0, 'pass'], [1, 'pass']) });
const D = filing('d', 13, 18, {
  modelCode: { 1: 'select 3 as id' },
  times: [0.75, 9],
  statuses: ['success', 'error'],
  tests: tests([0, 'skipped'], [1, 'error']),
});
const E = filing('e', 14, 17, { modelCode: { 1: 'select 3 as id' }, tests: tests([1], [1]), artifacts: ['manifest'] });

const RAN = new Set(['pass', 'warn', 'fail', 'error', 'runtime error']);
const FAILED = new Set(['fail', 'error', 'runtime error']);
const COMPLETED = new Set(['success', 'pass', 'warn', 'fail']);

function manifestOf(f: Filing): Manifest | null {
  return (f.artifacts ?? ['manifest', 'run_results']).includes('manifest') ? (JSON.parse(syntheticManifest(f)) as Manifest) : null;
}

function resultsOf(f: Filing): RunResults['results'] {
  return (f.artifacts ?? ['manifest', 'run_results']).includes('run_results') ? (JSON.parse(syntheticRunResults(f)) as RunResults).results : [];
}

/** The definitions a run of `test` ran under, as its own manifest has them: the test's code and edges, its parents' code. */
function definitionsIn(manifest: Manifest, test: string): string {
  const node = manifest.nodes[test]!;
  return JSON.stringify([node.raw_code, node.depends_on.nodes, [...node.depends_on.nodes].sort().map((p) => manifest.nodes[p]?.raw_code ?? null)]);
}

function expectedRows(present: readonly Filing[]): Record<string, unknown>[] {
  const history = [...present].sort((x, y) => x.generatedAt!.localeCompare(y.generatedAt!));
  const rows = [];
  for (const name of ['t0', 't1']) {
    const id = syntheticTestId(name);
    const runs = history.flatMap((f) =>
      resultsOf(f)
        .filter((r) => r.unique_id === id)
        .map((r) => ({ f, status: r.status })),
    );
    const ran = runs.filter((r) => RAN.has(r.status));
    const byDefinitions = new Map<string, Set<boolean>>();
    for (const r of ran.slice(-10)) {
      const own = manifestOf(r.f);
      if (!own?.nodes[id]) continue;
      const key = definitionsIn(own, id);
      byDefinitions.set(key, (byDefinitions.get(key) ?? new Set()).add(r.status === 'pass'));
    }
    const latest = history.filter((f) => manifestOf(f)?.nodes[id]).at(-1);
    const node = manifestOf(latest!)!.nodes[id]!;
    const count = (...statuses: string[]): number => runs.filter((r) => statuses.includes(r.status)).length;
    rows.push({
      unique_id: id,
      runs: ran.length,
      passes: count('pass'),
      warns: count('warn'),
      fails: count('fail'),
      errors: count('error', 'runtime error'),
      skips: count('skipped'),
      last_status: ran.at(-1)?.status ?? null,
      last_failure_invocation_id: runs.filter((r) => FAILED.has(r.status)).at(-1)?.f.invocationId ?? null,
      flaky: [...byDefinitions.values()].some((passed) => passed.size === 2),
      tested_node: node.attached_node ?? (node.depends_on.nodes.length === 1 ? node.depends_on.nodes[0] : null),
      depends_on: [...node.depends_on.nodes].sort(),
    });
  }
  return rows;
}

/** DuckDB's quantile_cont of sorted values: interpolated between the two nearest ranks. */
function quantile(sorted: number[], q: number): number {
  const h = (sorted.length - 1) * q;
  const [lo, hi] = [sorted[Math.floor(h)]!, sorted[Math.ceil(h)]!];
  return lo + (h - Math.floor(h)) * (hi - lo);
}

/** v_node_runtime's rules, from the results in the runs' JSON (times rounded, as compared). */
function expectedRuntime(present: readonly Filing[]): Record<string, unknown>[] {
  const history = [...present].sort((x, y) => x.generatedAt!.localeCompare(y.generatedAt!));
  const completed = history.flatMap((f) =>
    resultsOf(f)
      .filter((r) => COMPLETED.has(r.status))
      .map((r) => ({ f, ...r })),
  );
  const ids = [...new Set(completed.map((r) => r.unique_id))].sort();
  return ids.map((id) => {
    const runs = completed.filter((r) => r.unique_id === id);
    const last = runs.at(-1)!;
    const baseline = runs
      .slice(-11, -1)
      .map((r) => r.execution_time)
      .sort((a, b) => a - b);
    const sorted = runs.map((r) => r.execution_time).sort((a, b) => a - b);
    return {
      unique_id: id,
      name: manifestOf(last.f)?.nodes[id] ? id.split('.').at(-1) : null,
      runs: runs.length,
      median_s: round(quantile(sorted, 0.5)),
      p95_s: round(quantile(sorted, 0.95)),
      last_s: last.execution_time,
      last_invocation_id: last.f.invocationId,
      baseline_runs: baseline.length,
      baseline_median_s: baseline.length ? round(quantile(baseline, 0.5)) : null,
    };
  });
}

const round = (value: number): number => Math.round(value * 1e9) / 1e9;
const TESTS = `SELECT unique_id, runs, passes, warns, fails, errors, skips, last_status, last_failure_invocation_id, flaky, tested_node, depends_on
  FROM v_test_history ORDER BY unique_id`;
const RUNTIME = `SELECT unique_id, name, runs, round(median_s, 9) AS median_s, round(p95_s, 9) AS p95_s, last_s, last_invocation_id, baseline_runs,
  round(baseline_median_s, 9) AS baseline_median_s FROM v_node_runtime ORDER BY unique_id`;

describe('test history and node runtime derived at ingest', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'attic-test-history-'));
  const incremental = path.join(root, 'incremental.duckdb');
  const backend = new MemBackend();

  async function viewRows(sql = TESTS): Promise<Record<string, unknown>[]> {
    const db = await openDatabase(incremental, 'read');
    try {
      return plainResult(await db.connection.runAndReadAll(sql)).rows;
    } finally {
      db.close();
    }
  }

  async function expectRuntime(present: readonly Filing[]): Promise<void> {
    expect(await viewRows(RUNTIME)).toEqual(expectedRuntime(present));
  }

  async function expectRebuildEqual(): Promise<void> {
    const rebuilt = path.join(root, `rebuilt-${Date.now()}.duckdb`);
    await rebuildStore(backend, rebuilt);
    expectSameRows(await dumpStore(rebuilt), await dumpStore(incremental));
  }

  async function fileAndSync(f: Filing): Promise<void> {
    await file(backend, f);
    expect(await syncStore(backend, incremental, 'wait')).toMatchObject({ problems: [] });
  }

  async function forget(f: Filing): Promise<void> {
    await applyForget(backend, [f.invocationId], 'test', new Date());
    await syncStore(backend, incremental, 'wait');
  }

  beforeAll(async () => {
    await backend.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 1\n'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('adds each run later than those counted: a failure under the same definitions is a flap, one after its model changed is not', async () => {
    await fileAndSync(A);
    expect(await viewRows()).toEqual(expectedRows([A]));
    await expectRuntime([A]);
    await fileAndSync(B);
    const expected = expectedRows([A, B]);
    expect(expected.map((r) => r.flaky)).toEqual([true, false]);
    expect(await viewRows()).toEqual(expected);
    await expectRuntime([A, B]);
  });

  it('names the tested node from the latest manifest, and keeps it when an earlier run is filed after it', async () => {
    await fileAndSync(E);
    expect(await viewRows()).toEqual(expectedRows([A, B, E]));
    await fileAndSync(D);
    const expected = expectedRows([A, B, E, D]);
    expect(expected.map((r) => r.tested_node)).toEqual(['model.synthetic.m1', 'model.synthetic.m1']);
    expect(await viewRows()).toEqual(expected);
    await expectRuntime([A, B, E, D]);
    await expectRebuildEqual();
  });

  it('derives the rows again when a run is filed before runs counted, as a rebuild does', async () => {
    await fileAndSync(C);
    const expected = expectedRows([A, B, C, D, E]);
    expect(expected.map((r) => r.flaky)).toEqual([true, true]);
    expect(await viewRows()).toEqual(expected);
    await expectRuntime([A, B, C, D, E]);
    await expectRebuildEqual();
  });

  it('derives them again when a run counted is forgotten, as a rebuild does', async () => {
    await forget(B);
    const expected = expectedRows([A, C, D, E]);
    expect(expected.map((r) => [r.fails, r.flaky])).toEqual([
      [0, false],
      [0, false],
    ]);
    expect(await viewRows()).toEqual(expected);
    await expectRuntime([A, C, D, E]);
    await expectRebuildEqual();
  });

  it('looks for the tested node again when its latest manifest is forgotten, as a rebuild does', async () => {
    await forget(E);
    const expected = expectedRows([A, C, D]);
    expect(expected.map((r) => r.tested_node)).toEqual(['model.synthetic.m0', 'model.synthetic.m1']);
    expect(await viewRows()).toEqual(expected);
    await expectRuntime([A, C, D]);
    await expectRebuildEqual();
  });
});

describe('test history and node runtime whatever the order of filing', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'attic-test-history-orders-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  // In history order, in reverse, and two mixed: every run later, every run earlier, both.
  it.each([
    ['A B C D E', [A, B, C, D, E]],
    ['E D C B A', [E, D, C, B, A]],
    ['C A E B D', [C, A, E, B, D]],
    ['D B A E C', [D, B, A, E, C]],
  ])('%s: synced after each, equals the rules and a rebuild', async (name, order) => {
    const backend = new MemBackend();
    await backend.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 1\n'));
    const incremental = path.join(root, `${name.replaceAll(' ', '')}.duckdb`);
    for (const f of order) {
      await file(backend, f);
      expect(await syncStore(backend, incremental, 'wait')).toMatchObject({ problems: [] });
    }
    const db = await openDatabase(incremental, 'read');
    try {
      expect(plainResult(await db.connection.runAndReadAll(TESTS)).rows).toEqual(expectedRows(order));
      expect(plainResult(await db.connection.runAndReadAll(RUNTIME)).rows).toEqual(expectedRuntime(order));
    } finally {
      db.close();
    }
    const rebuilt = path.join(root, `${name.replaceAll(' ', '')}-rebuilt.duckdb`);
    await rebuildStore(backend, rebuilt);
    expectSameRows(await dumpStore(rebuilt), await dumpStore(incremental));
  });
});

describe('node runtime over more runs than its baseline holds', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'attic-node-runtime-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  // 14 runs, each synced as it comes: the last 11 times move on, the median and p95 cover all 14.
  const runs = Array.from({ length: 14 }, (_, i) =>
    filing(String.fromCharCode(0x61 + i), i, i + 1, {
      invocationId: `${String(i).padStart(8, '0')}-0000-4000-8000-000000000000`,
      times: [((i * 7) % 11) + 0.5, 20 - i],
      tests: [],
    }),
  );

  it('keeps the last 11 times for the baseline as runs are added, as its rules and a rebuild say', async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 1\n'));
    const incremental = path.join(root, 'incremental.duckdb');
    for (const f of runs) {
      await file(backend, f);
      expect(await syncStore(backend, incremental, 'wait')).toMatchObject({ problems: [] });
    }
    const db = await openDatabase(incremental, 'read');
    try {
      const rows = plainResult(await db.connection.runAndReadAll(RUNTIME)).rows;
      expect(rows.map((r) => [r.runs, r.baseline_runs])).toEqual([
        [14, 10],
        [14, 10],
      ]);
      expect(rows).toEqual(expectedRuntime(runs));
    } finally {
      db.close();
    }
    const rebuilt = path.join(root, 'rebuilt.duckdb');
    await rebuildStore(backend, rebuilt);
    expectSameRows(await dumpStore(rebuilt), await dumpStore(incremental));
  });
});

describe('node runtime when the median and p95 leave the times kept around them', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'attic-node-runtime-windows-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  // A model that only gets slower (m0) and one that only gets faster (m1): a catch-up adds 50
  // runs at a time, and the second 50 times all land beyond those kept around the median's rank,
  // which moves out of them; they are filled again from run_history. The first run is filed
  // last, so the table is derived again, stretch by stretch, and filled again the same way.
  const at = (i: number): string => new Date(Date.UTC(2024, 5, 1) + i * 60_000).toISOString();
  const runs = Array.from({ length: 101 }, (_, i) => ({
    invocationId: `${String(i).padStart(8, '0')}-0000-4000-8000-000000000001`,
    generatedAt: at(i),
    capturedAt: at(i === 0 ? 200 : i),
    statuses: ['success', 'success'],
    times: [1 + i * 0.25, 100 - i],
  }));

  it('fills them again from run_history, as its rules and a rebuild say', async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 1\n'));
    const incremental = path.join(root, 'incremental.duckdb');
    const expectRules = async (present: typeof runs): Promise<void> => {
      const db = await openDatabase(incremental, 'read');
      try {
        expect(plainResult(await db.connection.runAndReadAll(RUNTIME)).rows).toEqual(expectedRuntime(present));
      } finally {
        db.close();
      }
    };
    for (const f of runs.slice(1)) await file(backend, f);
    expect(await syncStore(backend, incremental, 'wait')).toMatchObject({ problems: [] });
    await expectRules(runs.slice(1));
    await file(backend, runs[0]!);
    expect(await syncStore(backend, incremental, 'wait')).toMatchObject({ problems: [] });
    await expectRules(runs);
    const rebuilt = path.join(root, 'rebuilt.duckdb');
    await rebuildStore(backend, rebuilt);
    expectSameRows(await dumpStore(rebuilt), await dumpStore(incremental));
  });
});
