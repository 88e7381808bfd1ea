import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Step } from '../../../fixtures/generate.mjs';
import { buildFixtureStore, completedByNode, executionsOf, median, type FixtureStore } from './fixture-store.js';

/**
 * Each view's answers for the fixture history, worked out here from the steps' own JSON (the
 * artifacts each step wrote) and compared with what the store says.
 */
interface RunResults {
  results: { unique_id: string }[];
}
interface Entry {
  name: string;
  resource_type: string;
  raw_code?: string;
  checksum?: { checksum: string };
  config?: { materialized?: string };
  depends_on?: { nodes?: string[]; macros?: string[] };
  attached_node?: string | null;
}
type Manifest = Record<string, Record<string, Entry> | undefined> & { macros: Record<string, { macro_sql: string }> };
interface Sources {
  results: {
    unique_id: string;
    status: string;
    max_loaded_at: string;
    criteria: { warn_after: { count: number; period: string }; error_after: { count: number; period: string } };
  }[];
}

const ENTRY_SECTIONS = ['nodes', 'sources', 'exposures', 'metrics', 'semantic_models', 'saved_queries', 'unit_tests'];

let fx: FixtureStore;
beforeAll(async () => {
  fx = await buildFixtureStore();
});
afterAll(() => fx?.close());

function manifestOf(step: Step): Manifest {
  const manifest = fx.written<Manifest>(step, 'manifest.json');
  if (!manifest) throw new Error(`step ${step.step} wrote no manifest`);
  return manifest;
}

function entriesOf(manifest: Manifest): Map<string, Entry> {
  return new Map(ENTRY_SECTIONS.flatMap((section) => Object.entries(manifest[section] ?? {})));
}

function stepOf(invocationId: unknown): number | undefined {
  return fx.steps.find((s) => s.invocation_id === invocationId)?.step;
}

describe('v_run_history', () => {
  it('has every run result, with the node as that invocation defined it', async () => {
    const expected = new Map<string, { name: string; resource_type: string; materialization: string | null }>();
    for (const step of fx.steps) {
      const entries = entriesOf(manifestOf(step));
      for (const r of fx.written<RunResults>(step, 'run_results.json')?.results ?? []) {
        const entry = entries.get(r.unique_id)!;
        expected.set(`${step.invocation_id}|${r.unique_id}`, {
          name: entry.name,
          resource_type: entry.resource_type,
          materialization: entry.config?.materialized ?? null,
        });
      }
    }
    const rows = await fx.query('SELECT invocation_id, unique_id, name, resource_type, materialization FROM v_run_history');
    const actual = new Map(
      rows.map((r) => [`${r.invocation_id}|${r.unique_id}`, { name: r.name, resource_type: r.resource_type, materialization: r.materialization }]),
    );
    expect(actual).toEqual(expected);
  });
});

describe('v_node_runtime', () => {
  it('counts the completed executions per node across all run_results, compile-only commands left out', async () => {
    const byNode = completedByNode(fx);
    const rows = await fx.query('SELECT unique_id, runs, median_s, last_s, last_invocation_id FROM v_node_runtime');
    expect(Object.fromEntries(rows.map((r) => [r.unique_id, r.runs]))).toEqual(Object.fromEntries([...byNode].map(([id, list]) => [id, list.length])));
    for (const row of rows) {
      const list = byNode.get(String(row.unique_id))!;
      expect(row.median_s).toBeCloseTo(median(list.map((e) => e.execution_time)), 9);
      expect(row.last_s).toBe(list.at(-1)!.execution_time);
      expect(row.last_invocation_id).toBe(list.at(-1)!.step.invocation_id);
    }
  });
});

describe('v_runtime_regressions', () => {
  /** The view's definition, applied to the JSON: last run against the median of up to 10 before it. */
  function predictRegressions(floorSeconds: number): string[] {
    const found: string[] = [];
    for (const [id, list] of completedByNode(fx)) {
      const baseline = list.slice(-11, -1).map((e) => e.execution_time);
      if (baseline.length < 3) continue;
      const last = list.at(-1)!.execution_time;
      if (last > 1.5 * median(baseline) && last - median(baseline) > floorSeconds) found.push(id);
    }
    return found.sort();
  }

  it('finds none with the default 1-second floor: every fixture node runs in under a second', async () => {
    expect(predictRegressions(1)).toEqual([]);
    expect(await fx.query('SELECT unique_id FROM v_runtime_regressions')).toEqual([]);
  });

  it('finds the predicted ones when the floor is lowered to zero', async () => {
    const predicted = predictRegressions(0);
    expect(predicted).toContain('model.attic_shop.order_totals');
    await fx.db.connection.run('SET VARIABLE regression_floor_s = 0');
    try {
      const rows = await fx.query('SELECT unique_id, trend_ratio FROM v_runtime_regressions ORDER BY unique_id');
      expect(rows.map((r) => r.unique_id)).toEqual(predicted);
      for (const row of rows) expect(row.trend_ratio).toBeGreaterThan(1.5);
    } finally {
      await fx.db.connection.run('RESET VARIABLE regression_floor_s');
    }
  });
});

describe('v_test_history', () => {
  it('counts each test outcome as the run_results report them', async () => {
    const expected: Record<string, Record<string, number>> = {};
    for (const e of executionsOf(fx).filter((e) => e.unique_id.startsWith('test.'))) {
      const counts = (expected[e.unique_id] ??= { passes: 0, warns: 0, fails: 0, errors: 0, skips: 0 });
      const key = { pass: 'passes', warn: 'warns', fail: 'fails', error: 'errors', skipped: 'skips' }[e.status]!;
      counts[key]! += 1;
    }
    const rows = await fx.query('SELECT unique_id, passes, warns, fails, errors, skips FROM v_test_history');
    expect(Object.fromEntries(rows.map(({ unique_id, ...counts }) => [unique_id, counts]))).toEqual(expected);
  });

  it("shows exactly step 05's failing test, failed once, last in step 05, and not flaky", async () => {
    const failures = executionsOf(fx).filter((e) => e.unique_id.startsWith('test.') && e.status === 'fail');
    expect(failures.map((e) => e.step.step)).toEqual([5]);
    const rows = await fx.query('SELECT unique_id, fails, last_failure_invocation_id, last_status FROM v_test_history WHERE fails + errors > 0');
    expect(rows).toEqual([{ unique_id: failures[0]!.unique_id, fails: 1, last_failure_invocation_id: failures[0]!.step.invocation_id, last_status: 'pass' }]);
    // It failed because `orders` changed and passed once `orders` was fixed: not flaky.
    expect(await fx.query('SELECT unique_id FROM v_test_history WHERE flaky')).toEqual([]);
  });

  it("names the tested node as step 12's manifest does", async () => {
    const entries = entriesOf(manifestOf(fx.steps.at(-1)!));
    const rows = await fx.query('SELECT unique_id, tested_node FROM v_test_history');
    for (const row of rows) {
      const test = entries.get(String(row.unique_id))!;
      const parents = test.depends_on?.nodes ?? [];
      expect(row.tested_node).toBe(test.attached_node ?? (parents.length === 1 ? parents[0] : null));
    }
    expect(rows.length).toBeGreaterThan(0);
  });
});

describe('v_node_changes', () => {
  /** Code, checksum and directly called macros compared step by step in the manifests. */
  function expectedChanges(): Record<string, string[]> {
    const expected: Record<string, string[]> = {};
    for (const [i, step] of fx.steps.entries()) {
      if (i === 0) continue;
      const before = manifestOf(fx.steps[i - 1]!);
      const after = manifestOf(step);
      const was = entriesOf(before);
      expect([...entriesOf(after).keys()].sort()).toEqual([...was.keys()].sort());
      for (const [id, now] of entriesOf(after)) {
        const old = was.get(id)!;
        const macros = (now.depends_on?.macros ?? []).filter(
          (m) => old.depends_on?.macros?.includes(m) && before.macros[m]?.macro_sql !== after.macros[m]?.macro_sql,
        );
        const aspects = [
          old.raw_code !== now.raw_code && 'raw_code',
          old.checksum?.checksum !== now.checksum?.checksum && 'checksum',
          macros.length > 0 && 'macros',
        ].filter((a): a is string => a !== false);
        if (aspects.length > 0) expected[`${id}@${step.step}`] = aspects;
      }
    }
    return expected;
  }

  it('lists every change of code, seed file or called macro, and nothing else', async () => {
    const rows = await fx.query('SELECT unique_id, to_invocation, what_changed FROM v_node_changes');
    // The fingerprint is another module's to compute; its verdicts are checked by kind below.
    const withoutFingerprint = (aspects: unknown): unknown => (aspects as string[]).filter((a) => a !== 'fingerprint');
    const actual = Object.fromEntries(rows.map((r) => [`${r.unique_id}@${stepOf(r.to_invocation)}`, withoutFingerprint(r.what_changed)]));
    // Tests' depends_on.macros grow when they execute; that alone is no change.
    expect(actual).toEqual(expectedChanges());
  });

  it('shows the edits of steps 02, 03 and 10 as the fixture describes them', async () => {
    const rows = await fx.query('SELECT unique_id, from_invocation, to_invocation, change_kind, what_changed, changed_macros FROM v_node_changes');
    const at = (step: number): Record<string, unknown>[] => rows.filter((r) => stepOf(r.to_invocation) === step);
    // 02 adds a comment and blank lines: the code changed, its meaning did not.
    expect(at(2)).toEqual([
      expect.objectContaining({
        unique_id: 'model.attic_shop.customers',
        from_invocation: fx.steps[0]!.invocation_id,
        change_kind: 'cosmetic',
        what_changed: ['raw_code', 'checksum'],
      }),
    ]);
    expect(at(3)).toEqual([
      expect.objectContaining({
        unique_id: 'model.attic_shop.customers',
        from_invocation: fx.steps[1]!.invocation_id,
        change_kind: 'semantic',
        what_changed: ['raw_code', 'checksum', 'fingerprint'],
      }),
    ]);
    // The macro changed, the models' text did not: no raw_code, the macro named instead.
    const macroStep = at(10).sort((a, b) => String(a.unique_id).localeCompare(String(b.unique_id)));
    expect(macroStep.map((r) => [r.unique_id, r.change_kind, r.what_changed, r.changed_macros])).toEqual([
      ['model.attic_shop.order_totals', 'semantic', ['macros', 'fingerprint'], ['macro.attic_shop.cents_to_dollars']],
      ['model.attic_shop.stg_payments', 'semantic', ['macros', 'fingerprint'], ['macro.attic_shop.cents_to_dollars']],
    ]);
  });
});

describe('v_latest_edges', () => {
  it("equals the depends_on of step 12's manifest, with both ends named", async () => {
    const last = fx.steps.at(-1)!;
    const entries = entriesOf(manifestOf(last));
    const expected = [...entries].flatMap(([id, entry]) => (entry.depends_on?.nodes ?? []).map((parent) => `${id} -> ${parent}`)).sort();
    const rows = await fx.query('SELECT * FROM v_latest_edges');
    expect(rows.map((r) => `${r.unique_id} -> ${r.depends_on_id}`).sort()).toEqual(expected);
    for (const row of rows) {
      expect(row.invocation_id).toBe(last.invocation_id);
      expect([row.name, row.resource_type]).toEqual([entries.get(String(row.unique_id))!.name, entries.get(String(row.unique_id))!.resource_type]);
      expect([row.depends_on_name, row.depends_on_resource_type]).toEqual([
        entries.get(String(row.depends_on_id))!.name,
        entries.get(String(row.depends_on_id))!.resource_type,
      ]);
    }
  });
});

describe('v_source_freshness_history', () => {
  it("holds step 08's sources.json: statuses, load times and thresholds", async () => {
    const step = fx.steps.find((s) => s.artifacts_written.includes('sources.json'))!;
    const sources = fx.written<Sources>(step, 'sources.json')!;
    const expected = sources.results.map((r) => ({
      unique_id: r.unique_id,
      invocation_id: step.invocation_id,
      status: r.status,
      previous_status: null,
      status_changed: false,
      max_loaded_at: Date.parse(r.max_loaded_at),
      thresholds: [r.criteria.warn_after.count, r.criteria.warn_after.period, r.criteria.error_after.count, r.criteria.error_after.period],
    }));
    const rows = await fx.query('SELECT * FROM v_source_freshness_history ORDER BY unique_id');
    const actual = rows.map((r) => ({
      unique_id: r.unique_id,
      invocation_id: r.invocation_id,
      status: r.status,
      previous_status: r.previous_status,
      status_changed: r.status_changed,
      max_loaded_at: Date.parse(String(r.max_loaded_at)),
      thresholds: [r.warn_after_count, r.warn_after_period, r.error_after_count, r.error_after_period],
    }));
    expect(actual).toEqual(expected.sort((a, b) => a.unique_id.localeCompare(b.unique_id)));
    expect(new Set(actual.map((r) => r.status))).toEqual(new Set(['pass', 'warn', 'error']));
  });

  it('names each source as the latest manifest at or before the check does', async () => {
    const step = fx.steps.find((s) => s.artifacts_written.includes('sources.json'))!;
    const defining = fx.steps.filter((s) => s.step <= step.step && s.artifacts_written.includes('manifest.json')).at(-1)!;
    const sources = manifestOf(defining).sources ?? {};
    const rows = await fx.query('SELECT unique_id, source_name, table_name FROM v_source_freshness_history');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const source = sources[String(row.unique_id)] as Entry & { source_name: string };
      expect([row.source_name, row.table_name]).toEqual([source.source_name, source.name]);
    }
  });
});
