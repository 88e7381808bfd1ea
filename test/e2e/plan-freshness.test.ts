import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StepDefinition } from '../../fixtures/generate.mjs';
import type { PlanResult } from '../../src/plan/index.js';
import { captureSequence, type CapturedSequence } from '../helpers/captured-sequence.js';
import { manifestGraph, stepFile } from '../helpers/manifest-graph.js';

/**
 * dbt's model freshness (`build_after`) and catalog snapshots as proof of unchanged data, over
 * synthetic sequences of our own (fixtures/, labelled synthetic). Expected sets come from the
 * manifests' JSON.
 */
const step = (n: number, slug: string, kind: StepDefinition['kind'], hours: number, edits: StepDefinition['edits'] = []): StepDefinition => ({
  step: n,
  slug,
  command: kind === 'parse' ? 'dbt parse' : kind === 'freshness' ? 'dbt source freshness' : 'dbt build',
  kind,
  ...(kind === 'invocation' ? { which: 'build' as const } : {}),
  select: [],
  edits,
  description: slug,
  hours,
});
const BUILD_AFTER = {
  file: 'dbt_project.yml',
  replace: [
    '    marts:\n      +materialized: table\n',
    '    marts:\n      +materialized: table\n      +freshness:\n        build_after:\n          count: 4\n          period: hour\n',
  ] as [string, string],
};
const STG_ORDERS = { file: 'models/staging/stg_orders.sql', replace: ['lower(status) as status', 'lower(trim(status)) as status'] as [string, string] };

const verdicts = (plan: PlanResult): Record<string, string> =>
  Object.fromEntries(plan.nodes.map((n) => [n.unique_id, n.verdict === 'reuse' ? (n.reason === 'unchanged' ? 'reuse' : `reuse (${n.reason})`) : n.reason]));

describe('build_after: {count: 4, period: hour}', () => {
  let seq: CapturedSequence;
  beforeAll(async () => {
    seq = await captureSequence(
      [
        step(1, 'build', 'invocation', 0, [BUILD_AFTER]),
        step(2, 'freshness', 'freshness', 0.3),
        step(3, 'parse-1h', 'parse', 1, [STG_ORDERS]),
        step(4, 'parse-5h', 'parse', 5),
      ],
      'plan-build-after',
    );
  }, 240_000);
  afterAll(() => seq?.remove());

  /** Marts with build_after downstream of the change, read from the manifest's config. */
  function martsBelowChange(slug: string): { changed: string; held: string[]; graph: ReturnType<typeof manifestGraph> } {
    const graph = manifestGraph(stepFile(seq.history, seq.step(slug), 'manifest.json'));
    const changed = 'model.attic_shop.stg_orders';
    const held = [...graph.descendants(changed)].filter(
      (id) => ((graph.planned.get(id)?.config as Record<string, unknown> | undefined)?.freshness as Record<string, unknown> | undefined)?.build_after,
    );
    return { changed, held, graph };
  }

  it('upstream changed 1 h after the last build: reuse (within build_after)', async () => {
    const { changed, held, graph } = martsBelowChange('parse-1h');
    expect(held.length).toBeGreaterThan(0);
    const got = verdicts(await seq.json<PlanResult>(['plan', '--invocation', seq.step('parse-1h').invocation_id]));
    expect(got[changed]).toBe('code changed');
    // Held back where the changed node is read directly; what reads a held node has nothing new to read.
    const direct = held.filter((id) => graph.parentsOf(id).includes(changed));
    expect(direct.length).toBeGreaterThan(0);
    for (const id of direct) expect(got[id], id).toBe('reuse (within build_after)');
    for (const id of held) expect(got[id], id).toMatch(/^reuse/);
  });

  it('5 h after: build', async () => {
    const { changed, held } = martsBelowChange('parse-5h');
    const got = verdicts(await seq.json<PlanResult>(['plan', '--invocation', seq.step('parse-5h').invocation_id]));
    expect(got[changed]).toBe('code changed');
    for (const id of held) expect(got[id], id).toBe('upstream will build');
  });
});

describe('catalog snapshot (atomic, as Nessie or lakeFS)', () => {
  let seq: CapturedSequence;
  const snapshotOf: Record<string, string> = { build: 'c0ffee01', 'parse-same': 'c0ffee01', 'parse-moved': 'c0ffee02' };
  beforeAll(async () => {
    seq = await captureSequence([step(1, 'build', 'invocation', 0), step(2, 'parse-same', 'parse', 1), step(3, 'parse-moved', 'parse', 2)], 'plan-catalog', {
      files: { 'dbtattic.yml': 'catalog:\n  provider: env\n  variable: ATTIC_TEST_SNAPSHOT\n  atomic: true\n' },
      env: (s) => ({ ATTIC_TEST_SNAPSHOT: snapshotOf[s.slug]! }),
    });
  }, 240_000);
  afterAll(() => seq?.remove());

  it('unchanged: everything reuse, with no freshness check at all', async () => {
    const plan = await seq.json<PlanResult>(['plan', '--invocation', seq.step('parse-same').invocation_id]);
    expect(plan.counts.build).toBe(0);
    expect(plan.nodes.length).toBe(manifestGraph(stepFile(seq.history, seq.step('parse-same'), 'manifest.json')).planned.size);
  });

  it('changed: the nodes that read sources build (freshness unknown), and what is downstream', async () => {
    const graph = manifestGraph(stepFile(seq.history, seq.step('parse-moved'), 'manifest.json'));
    const readers = [...graph.planned.keys()].filter((id) => graph.parentsOf(id).some((p) => p.startsWith('source.')));
    const expected = new Set([...readers, ...readers.flatMap((id) => [...graph.descendants(id)])]);
    const got = verdicts(await seq.json<PlanResult>(['plan', '--invocation', seq.step('parse-moved').invocation_id]));
    for (const id of graph.planned.keys()) {
      const want = readers.includes(id) ? 'freshness unknown' : expected.has(id) ? 'upstream will build' : 'reuse';
      expect(got[id], id).toBe(want);
    }
  });
});
