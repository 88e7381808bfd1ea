import { describe, expect, it } from 'vitest';
import { decidePlan } from '../../../src/plan/index.js';
import type { BuildFact, CatalogFact, CurrentNode, PlanFacts } from '../../../src/store/index.js';

/** Hand-made facts (no store): the rules of decidePlan one by one. Times in hours → microseconds. */
const H = 3600e6;
// Views by default: a table that declares no input is a rule of its own (below).
const node = (id: string, parents: string[] = [], extra: Partial<CurrentNode> = {}): CurrentNode => ({
  uniqueId: id,
  resourceType: id.split('.')[0]!,
  name: id.split('.').at(-1)!,
  packageName: 'p',
  path: null,
  tags: [],
  fqn: [],
  materialization: 'view',
  fingerprint: `fp-${id}`,
  checksum: `ck-${id}`,
  configKey: 'cfg',
  buildAfter: null,
  parents,
  tableKey: null,
  ...extra,
});
const built = (id: string, hours: number | null, extra: Partial<BuildFact> = {}): BuildFact => ({
  invocationId: 'run-1',
  branch: 'main',
  status: 'success',
  finishedAtUs: hours === null ? null : hours * H,
  fingerprint: `fp-${id}`,
  checksum: `ck-${id}`,
  configKey: 'cfg',
  catalog: null,
  ...extra,
});

function facts(nodes: CurrentNode[], builds: Record<string, BuildFact | null>, extra: Partial<PlanFacts> = {}): PlanFacts {
  return {
    invocationId: 'parse',
    generatedAtUs: 10 * H,
    target: null,
    branch: 'main',
    catalog: null,
    nodes,
    seenBefore: new Set(nodes.map((n) => n.uniqueId)),
    builds: new Map(Object.entries(builds).map(([id, b]) => [id, { own: { lastAttempt: b, lastSuccess: b }, defer: null }])),
    ownRun: null,
    freshness: new Map(),
    ephemeralAt: new Map(),
    ...extra,
  };
}
const reasons = (f: PlanFacts): Record<string, string> =>
  Object.fromEntries(decidePlan(f, { deferTo: null }).map((v) => [v.unique_id, v.verdict === 'reuse' ? v.reason : v.reason]));
const SRC = 'source.p.raw.orders';
const source = node(SRC, [], { tableKey: 'db.raw.orders', fingerprint: null });

describe('decidePlan', () => {
  it('the first reason in the fixed order wins, whatever the order of the checks', () => {
    const f = facts([node('model.p.a'), node('model.p.b', ['model.p.a'])], {
      'model.p.a': built('model.p.a', 2, { fingerprint: 'old' }),
      'model.p.b': built('model.p.b', 1, { status: 'error' }),
    });
    expect(reasons(f)).toEqual({ 'model.p.a': 'code changed', 'model.p.b': 'last build failed' });
  });

  it('a fingerprint change with the same checksum and another config is a config change', () => {
    const f = facts([node('model.p.a')], { 'model.p.a': built('model.p.a', 1, { fingerprint: 'old', configKey: 'other' }) });
    expect(reasons(f)).toEqual({ 'model.p.a': 'config or contract changed' });
  });

  it('a build whose manifest was never captured has no fingerprint: its code is unknown, not changed', () => {
    const f = facts([node('model.p.a'), node('model.p.b')], {
      'model.p.a': built('model.p.a', 1, { fingerprint: null, checksum: null, configKey: null }),
      'model.p.b': built('model.p.b', 1),
    });
    f.nodes[1] = { ...f.nodes[1]!, fingerprint: null };
    expect(reasons(f)).toEqual({ 'model.p.a': 'code unknown', 'model.p.b': 'code unknown' });
  });

  it('upstream built since: a parent finished after the node, or at the same instant, or at an unknown time', () => {
    for (const parentHours of [3, 2, null]) {
      const f = facts([node('model.p.a'), node('model.p.b', ['model.p.a'])], {
        'model.p.a': built('model.p.a', parentHours),
        'model.p.b': built('model.p.b', 2),
      });
      expect(reasons(f)['model.p.b'], String(parentHours)).toBe('upstream built since');
    }
  });

  it('an atomic catalog snapshot equal to the build one proves the sources unchanged; a different one proves nothing', () => {
    const cat = (id: string): CatalogFact => ({ status: 'ok', snapshotId: id, atomic: true, perTable: null });
    const base = (current: string) =>
      facts([source, node('model.p.a', [SRC])], { 'model.p.a': built('model.p.a', 1, { catalog: cat('s1') }) }, { catalog: cat(current) });
    expect(reasons(base('s1'))['model.p.a']).toBe('unchanged');
    expect(reasons(base('s2'))['model.p.a']).toBe('freshness unknown');
  });

  it("a per-table catalog compares the source table's own snapshot id", () => {
    const cat = (orders: string, other: string): CatalogFact => ({
      status: 'ok',
      snapshotId: 'combined',
      atomic: false,
      perTable: { 'db.raw.orders': orders, 'db.raw.other': other },
    });
    const base = (current: CatalogFact) =>
      facts([source, node('model.p.a', [SRC])], { 'model.p.a': built('model.p.a', 1, { catalog: cat('t1', 'x1') }) }, { catalog: current });
    expect(reasons(base(cat('t1', 'x2')))['model.p.a']).toBe('unchanged');
    expect(reasons(base(cat('t2', 'x1')))['model.p.a']).toBe('source data newer');
  });

  it('freshness: newest max_loaded_at of the checks taken after the build, compared strictly; unknown is never reused', () => {
    const run = (checks: { takenAtUs: number | null; maxLoadedAtUs: number | null }[]) =>
      reasons(
        facts(
          [source, node('model.p.a', [SRC])],
          { 'model.p.a': built('model.p.a', 2) },
          { freshness: new Map([[SRC, checks.map((c) => ({ ...c, invocationId: 'f' }))]]) },
        ),
      )['model.p.a'];
    expect(run([{ takenAtUs: 3 * H, maxLoadedAtUs: 2 * H }])).toBe('unchanged');
    expect(run([{ takenAtUs: 3 * H, maxLoadedAtUs: 2 * H + 1 }])).toBe('source data newer');
    expect(run([{ takenAtUs: 1 * H, maxLoadedAtUs: 0 }])).toBe('freshness unknown');
    expect(run([{ takenAtUs: 3 * H, maxLoadedAtUs: null }])).toBe('freshness unknown');
    expect(run([])).toBe('freshness unknown');
  });

  it('build_after with updates_on: all waits until every input changed', () => {
    const buildAfter = { count: 1, period: 'hour', updatesOn: 'all' };
    const nodes = [node('model.p.a'), node('model.p.x'), node('model.p.b', ['model.p.a', 'model.p.x'], { buildAfter })];
    const one = facts(nodes, {
      'model.p.a': built('model.p.a', 1, { fingerprint: 'old' }),
      'model.p.x': built('model.p.x', 1),
      'model.p.b': built('model.p.b', 2),
    });
    expect(reasons(one)['model.p.b']).toBe('within build_after');
    const both = facts(nodes, {
      'model.p.a': built('model.p.a', 1, { fingerprint: 'old' }),
      'model.p.x': built('model.p.x', 1, { fingerprint: 'old' }),
      'model.p.b': built('model.p.b', 2),
    });
    expect(reasons(both)['model.p.b']).toBe('upstream will build');
  });

  it("an ephemeral parent is compared as the child's build compiled it", () => {
    const eph = node('model.p.e', [], { materialization: 'ephemeral', fingerprint: 'e-now' });
    const f = (then: string) =>
      facts([eph, node('model.p.b', ['model.p.e'])], { 'model.p.b': built('model.p.b', 1) }, { ephemeralAt: new Map([['run-1 model.p.e', then]]) });
    expect(reasons(f('e-now'))).toEqual({ 'model.p.b': 'unchanged' });
    expect(reasons(f('e-old'))).toEqual({ 'model.p.b': 'code changed' });
    const unknown = facts([eph, node('model.p.b', ['model.p.e'])], { 'model.p.b': built('model.p.b', 1) });
    expect(reasons(unknown)).toEqual({ 'model.p.b': 'code unknown' });
  });

  it('a table, incremental model or snapshot that declares no input (no ref, source or seed) has unknown freshness', () => {
    // What real dbt showed: `select * from raw.notes`, no source declaring it, reused with rows missing.
    const table = (id: string, extra: Partial<CurrentNode> = {}): CurrentNode => node(id, [], { materialization: 'table', ...extra });
    const nodes = [
      table('model.p.raw_reader'),
      table('model.p.incremental_reader', { materialization: 'incremental' }),
      table('snapshot.p.snap', { materialization: 'snapshot' }),
      node('model.p.view_reader'),
      table('seed.p.codes', { materialization: 'seed' }),
      source,
      node('model.p.declared', [SRC], { materialization: 'table' }),
    ];
    const f = facts(nodes, Object.fromEntries(nodes.filter((n) => n !== source).map((n) => [n.uniqueId, built(n.uniqueId, 1)])), {
      freshness: new Map([[SRC, [{ takenAtUs: 2 * H, maxLoadedAtUs: 0.5 * H, invocationId: 'f' }]]]),
    });
    expect(reasons(f)).toEqual({
      'model.p.raw_reader': 'freshness unknown',
      'model.p.incremental_reader': 'freshness unknown',
      'snapshot.p.snap': 'freshness unknown',
      'model.p.view_reader': 'unchanged',
      'seed.p.codes': 'unchanged',
      'model.p.declared': 'unchanged',
    });
    // build_after still holds such a model, as it holds any other whose inputs are unknown.
    const held = facts([table('model.p.raw_reader', { buildAfter: { count: 4, period: 'hour', updatesOn: 'any' } })], {
      'model.p.raw_reader': built('model.p.raw_reader', 8),
    });
    expect(reasons(held)).toEqual({ 'model.p.raw_reader': 'within build_after' });
  });

  it('defers to another branch only for nodes never built on this one', () => {
    const f = facts([node('model.p.a'), node('model.p.b')], {});
    f.builds.set('model.p.a', {
      own: { lastAttempt: null, lastSuccess: null },
      defer: { lastAttempt: built('model.p.a', 1), lastSuccess: built('model.p.a', 1) },
    });
    f.builds.set('model.p.b', {
      own: { lastAttempt: built('model.p.b', 1, { status: 'error' }), lastSuccess: null },
      defer: { lastAttempt: built('model.p.b', 1), lastSuccess: built('model.p.b', 1) },
    });
    const got = decidePlan(f, { deferTo: 'main' });
    expect(got.map((v) => [v.unique_id, v.verdict, v.reason, v.from_branch])).toEqual([
      ['model.p.a', 'reuse', 'unchanged', 'main'],
      ['model.p.b', 'build', 'never built on this target', null],
    ]);
  });
});
