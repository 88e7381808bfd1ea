import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StepDefinition } from '../../fixtures/generate.mjs';
import type { NodeVerdict, PlanResult } from '../../src/plan/index.js';
import { readJson, type Json } from '../helpers/artifact-facts.js';
import { captureSequence, type CapturedSequence } from '../helpers/captured-sequence.js';
import { manifestGraph, stepFile } from '../helpers/manifest-graph.js';

/**
 * The plan scenarios of issue 12 over a synthetic sequence of our own (fixtures/, labelled
 * synthetic): builds and freshness checks are filed on branch main, parses on dev. An atomic
 * catalog (the env provider) records snapshot s1 until the sources are loaded again, s2 after.
 * Expected verdicts come from the scenario and the artifacts' JSON (the graph, statuses, load
 * times), never from dbtattic's own output.
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
const swap = (file: string, from: string, to: string): StepDefinition['edits'][number] => ({ file, replace: [from, to] });
const COMMENT = swap('models/marts/customers.sql', 'with customers as (\n', '-- lifetime facts, one row per customer\nwith customers as (\n\n');
const STG_ORDERS = ['models/staging/stg_orders.sql', 'lower(status) as status', 'lower(trim(status)) as status'] as const;
const SEED = ['seeds/country_codes.csv', 'GB,United Kingdom,Europe\n', 'GB,United Kingdom,Europe\nIE,Ireland,Europe\n'] as const;
const MACRO = swap(
  'macros/cents_to_dollars.sql',
  'round(({{ column_name }}) / 100.0, {{ scale }})',
  'cast(({{ column_name }}) / 100 as decimal(6, {{ scale }}))',
);

const STEPS: StepDefinition[] = [
  step(1, 'build', 'invocation', 0),
  step(2, 'freshness', 'freshness', 0.4),
  step(3, 'parse-unchanged', 'parse', 0.5),
  step(4, 'parse-comment', 'parse', 0.6, [COMMENT]),
  step(5, 'parse-sql-change', 'parse', 0.7, [swap(...STG_ORDERS)]),
  step(6, 'parse-seed-change', 'parse', 0.8, [swap(STG_ORDERS[0], STG_ORDERS[2], STG_ORDERS[1]), swap(...SEED)]),
  step(7, 'freshness-late', 'freshness', 3.5, [swap(SEED[0], SEED[2], SEED[1])]),
  step(8, 'parse-after-load', 'parse', 3.6),
  step(9, 'build-fails', 'invocation', 4, [MACRO]),
  step(10, 'parse-after-failure', 'parse', 4.5),
];

let seq: CapturedSequence;
const isMain = (slug: string): boolean => slug.startsWith('build') || slug.startsWith('freshness');

beforeAll(async () => {
  seq = await captureSequence(STEPS, 'plan-scenarios', {
    branch: (s) => (isMain(s.slug) ? 'main' : 'dev'),
    files: { 'dbtattic.yml': 'catalog:\n  provider: env\n  variable: ATTIC_TEST_SNAPSHOT\n  atomic: true\n' },
    env: (s) => ({ ATTIC_TEST_SNAPSHOT: s.step < 7 ? 's1' : 's2' }),
  });
}, 240_000);
afterAll(() => seq?.remove());

const plan = (slug: string, ...args: string[]): Promise<PlanResult> => seq.json<PlanResult>(['plan', '--invocation', seq.step(slug).invocation_id, ...args]);
const byId = (result: PlanResult): Map<string, NodeVerdict> => new Map(result.nodes.map((n) => [n.unique_id, n]));
const graphOf = (slug: string) => manifestGraph(stepFile(seq.history, seq.step(slug), 'manifest.json'));
const idOf = (slug: string, name: string): string => [...graphOf(slug).planned.keys()].find((id) => id.split('.').at(-1) === name && !id.startsWith('test.'))!;

/** Every planned node: `build` with the given reason for the named ones, `reuse` for the rest. */
function expectVerdicts(result: PlanResult, slug: string, builds: Map<string, string>): void {
  const planned = [...graphOf(slug).planned.keys()].sort();
  expect(result.nodes.map((n) => n.unique_id)).toEqual(planned);
  const got = Object.fromEntries(result.nodes.map((n) => [n.unique_id, n.verdict === 'build' ? n.reason : 'reuse']));
  expect(got).toEqual(Object.fromEntries(planned.map((id) => [id, builds.get(id) ?? 'reuse'])));
}

/** The changed node gets `reason`, everything downstream of it `upstream will build`. */
function buildsFrom(slug: string, changed: string[], reason: string): Map<string, string> {
  const graph = graphOf(slug);
  const builds = new Map<string, string>();
  for (const id of changed) for (const down of graph.descendants(id)) builds.set(down, 'upstream will build');
  for (const id of changed) builds.set(id, reason);
  return builds;
}

describe('plan over a synthetic history (issue 12 scenarios)', () => {
  it('second run, nothing changed: everything reuse', async () => {
    const result = await plan('parse-unchanged', '--branch', 'main');
    expectVerdicts(result, 'parse-unchanged', new Map());
    expect(result.counts).toMatchObject({ build: 0, reuse: graphOf('parse-unchanged').planned.size });
  });

  it('a comment and blank lines: reuse', async () => {
    expect(seq.step('parse-comment').changed_files).toEqual(['models/marts/customers.sql']);
    expectVerdicts(await plan('parse-comment', '--branch', 'main'), 'parse-comment', new Map());
  });

  it('a real SQL change: that node builds (code changed) and everything downstream (upstream will build)', async () => {
    const changed = idOf('parse-sql-change', 'stg_orders');
    expectVerdicts(await plan('parse-sql-change', '--branch', 'main'), 'parse-sql-change', buildsFrom('parse-sql-change', [changed], 'code changed'));
  });

  it('a changed seed: it and its downstream build; the SQL change reverted reuses again', async () => {
    const seed = idOf('parse-seed-change', 'country_codes');
    expectVerdicts(await plan('parse-seed-change', '--branch', 'main'), 'parse-seed-change', buildsFrom('parse-seed-change', [seed], 'code changed'));
  });

  it('a source loaded after the last build (sources.json): the nodes that read it build', async () => {
    const build = readJson(stepFile(seq.history, seq.step('build'), 'run_results.json'));
    const finished = new Map(((build.results as Json[]) ?? []).map((r) => [String(r.unique_id), completedAt(r)]));
    const late = (readJson(stepFile(seq.history, seq.step('freshness-late'), 'sources.json')).results as Json[]).map((r) => ({
      id: String(r.unique_id),
      loaded: Date.parse(String(r.max_loaded_at)),
    }));
    const graph = graphOf('parse-after-load');
    // Facts from the JSON: the catalog moved (s1 → s2), so sources.json decides. A source loaded
    // after the node's build: newer; a source no check looked at: unknown.
    const sourcesOf = (id: string): string[] => graph.parentsOf(id).filter((p) => p.startsWith('source.'));
    const newer = [...graph.planned.keys()].filter((id) => sourcesOf(id).some((p) => late.some((c) => c.id === p && c.loaded > finished.get(id)!)));
    const unknown = [...graph.planned.keys()].filter((id) => !newer.includes(id) && sourcesOf(id).some((p) => !late.some((c) => c.id === p)));
    expect(newer.length).toBeGreaterThan(0);
    const expected = buildsFrom('parse-after-load', [...newer, ...unknown], 'upstream will build');
    for (const id of newer) expected.set(id, 'source data newer');
    for (const id of unknown) expected.set(id, 'freshness unknown');
    expectVerdicts(await plan('parse-after-load', '--branch', 'main'), 'parse-after-load', expected);
  });

  it('last build failed: build', async () => {
    const failed = ((readJson(stepFile(seq.history, seq.step('build-fails'), 'run_results.json')).results as Json[]) ?? [])
      .filter((r) => r.status === 'error')
      .map((r) => String(r.unique_id));
    expect(failed.length).toBeGreaterThan(0);
    const verdicts = byId(await plan('parse-after-failure', '--branch', 'main'));
    for (const id of failed) expect(verdicts.get(id)).toMatchObject({ verdict: 'build', reason: 'last build failed' });
  });

  it('a changed macro: the nodes that call it build as code changed, not config', async () => {
    const nodes = readJson(stepFile(seq.history, seq.step('build-fails'), 'manifest.json')).nodes as Record<string, { depends_on?: { macros?: string[] } }>;
    const callers = Object.entries(nodes)
      .filter(([, n]) => n.depends_on?.macros?.includes('macro.attic_shop.cents_to_dollars'))
      .map(([id]) => id);
    expect(callers.length).toBeGreaterThan(0);
    const verdicts = byId(await plan('build-fails', '--branch', 'main'));
    for (const id of callers) expect(verdicts.get(id), id).toMatchObject({ verdict: 'build', reason: 'code changed' });
  });

  it('never built on this target, or on this branch: build', async () => {
    const prod = await plan('parse-unchanged', '--branch', 'main', '--target', 'prod');
    expect(new Set(prod.nodes.map((n) => n.reason))).toEqual(new Set(['never built on this target']));
    const dev = await plan('parse-unchanged');
    expect(dev.branch).toBe('dev');
    expect(new Set(dev.nodes.map((n) => n.reason))).toEqual(new Set(['never built on this target']));
  });

  it("a dev branch with nothing built: --defer-to main reuses production's unchanged builds", async () => {
    const result = await plan('parse-sql-change', '--defer-to', 'main');
    const changed = buildsFrom('parse-sql-change', [idOf('parse-sql-change', 'stg_orders')], 'code changed');
    expectVerdicts(result, 'parse-sql-change', changed);
    for (const node of result.nodes.filter((n) => n.verdict === 'reuse')) expect(node.from_branch).toBe('main');
    const text = await seq.attic(['plan', '--invocation', seq.step('parse-sql-change').invocation_id, '--defer-to', 'main']);
    expect(text.stdout).toContain('reuse (from main)');
  });
});

describe('plan output, selection and records', () => {
  it('counts on top of the table', async () => {
    const result = await seq.attic(['plan', '--invocation', seq.step('parse-sql-change').invocation_id, '--branch', 'main']);
    const json = await plan('parse-sql-change', '--branch', 'main');
    expect(result.exitCode).toBe(0);
    const [counts, head] = result.stdout.split('\n');
    expect(counts).toMatch(new RegExp(`^${json.counts.reuse} reuse, ${json.counts.build} build \\(`));
    expect(head).toBe('verdict\ttype\tnode');
  });

  it('--format selector names the nodes to build and --format exclude the ones to reuse, one word each', async () => {
    const json = await plan('parse-sql-change', '--branch', 'main');
    const words = async (format: string): Promise<string[]> =>
      (await seq.attic(['plan', '--invocation', seq.step('parse-sql-change').invocation_id, '--branch', 'main', '--format', format])).stdout
        .trim()
        .split(/\s+/)
        .filter(Boolean);
    const names = (verdict: string): string[] => json.nodes.filter((n) => n.verdict === verdict).map((n) => n.selector);
    expect(await words('selector')).toEqual(names('build'));
    expect(await words('exclude')).toEqual(names('reuse'));
    expect(names('build')).toContain('stg_orders');
  });

  it("--select and --exclude take dbt's simple forms", async () => {
    const graph = graphOf('parse-sql-change');
    const ids = async (...args: string[]): Promise<string[]> =>
      (await plan('parse-sql-change', '--branch', 'main', ...args)).nodes.map((n) => n.unique_id).sort();
    const stgOrders = idOf('parse-sql-change', 'stg_orders');
    const testsOf = (set: Set<string>): string[] =>
      [...graph.planned.keys()].filter((id) => id.startsWith('test.') && graph.parentsOf(id).some((p) => set.has(p)));
    const downstream = new Set([stgOrders, ...graph.descendants(stgOrders)]);
    expect(await ids('--select', 'stg_orders+')).toEqual([...new Set([...downstream, ...testsOf(downstream)])].filter((id) => graph.planned.has(id)).sort());
    expect(await ids('--select', 'resource_type:seed')).toEqual(
      [idOf('parse-sql-change', 'country_codes'), ...testsOf(new Set([idOf('parse-sql-change', 'country_codes')]))].sort(),
    );
    const staging = [...graph.planned].filter(([, n]) => ((n.tags as string[]) ?? []).includes('staging')).map(([id]) => id);
    expect(await ids('--select', 'tag:staging')).toEqual([...new Set([...staging, ...testsOf(new Set(staging))])].sort());
    const marts = [...graph.planned].filter(([, n]) => String(n.original_file_path).startsWith('models/marts/')).map(([id]) => id);
    expect(await ids('--select', 'path:models/marts', '--exclude', 'resource_type:test')).toEqual(marts.filter((id) => !id.startsWith('test.')).sort());
    const customers = idOf('parse-sql-change', 'customers');
    const oneUp = new Set([customers, ...graph.parentsOf(customers).filter((p) => graph.planned.has(p))]);
    expect(await ids('--select', '1+customers')).toEqual([...new Set([...oneUp, ...testsOf(oneUp)])].sort());
  });

  it('anything else is refused, naming what is supported', async () => {
    const result = await seq.attic(['plan', '--invocation', seq.step('parse-sql-change').invocation_id, '--select', 'state:modified+']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("Unsupported selector 'state:modified+'");
    expect(result.stderr).toContain('tag:NAME, path:DIR, resource_type:TYPE');
  });

  it('every plan is recorded beside its invocation, and inspect shows it', async () => {
    const id = seq.step('parse-comment').invocation_id;
    const made = await plan('parse-comment', '--branch', 'main');
    const dir = path.join(seq.project, '.dbtattic', 'archive', 'records', 'plans', id);
    expect(existsSync(path.join(dir, `${made.plan_id}.json`))).toBe(true);
    expect(readJson(path.join(dir, `${made.plan_id}.json`))).toEqual(JSON.parse(JSON.stringify(made)));
    expect(readdirSync(dir).some((f) => f.startsWith('.tmp'))).toBe(false);
    const inspected = await seq.json<{ plans: { plan_id: string; counts: unknown }[] }>(['inspect', id]);
    expect(inspected.plans.map((p) => p.plan_id)).toContain(made.plan_id);
    const text = await seq.attic(['inspect', id]);
    expect(text.stdout).toContain(`plan ${made.plan_id}`);
  });

  it('verify checks plan records: one whose content does not match its key is reported', async () => {
    const made = await plan('parse-comment', '--branch', 'main');
    expect((await seq.attic(['verify'])).exitCode).toBe(0);
    const file = path.join(seq.project, '.dbtattic', 'archive', 'records', 'plans', made.invocation_id, `${made.plan_id}.json`);
    const original = readFileSync(file, 'utf8');
    try {
      writeFileSync(file, original.replace(made.plan_id, 'not-this-plan'));
      const result = await seq.attic(['verify', '--json']);
      expect(result.exitCode).toBe(4);
      const key = `records/plans/${made.invocation_id}/${made.plan_id}.json`;
      expect((JSON.parse(result.stdout) as { problems: { kind: string; key: string }[] }).problems).toEqual([
        expect.objectContaining({ kind: 'bad-record', key }),
      ]);
    } finally {
      writeFileSync(file, original);
    }
  });

  it('explain prints each check with old and new value, and the verdict', async () => {
    const result = await seq.attic(['explain', 'stg_orders', '--invocation', seq.step('parse-sql-change').invocation_id, '--branch', 'main']);
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^model\.attic_shop\.stg_orders: build \(code changed\)$/);
    const fingerprint = lines.find((l) => l.startsWith('fingerprint\t'))!.split('\t');
    expect(fingerprint[1]).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprint[2]).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprint[1]).not.toBe(fingerprint[2]);
    expect(fingerprint[3]).toBe('fails: code changed');
    const viaPlan = await seq.attic(['plan', '--explain', 'stg_orders', '--invocation', seq.step('parse-sql-change').invocation_id, '--branch', 'main']);
    expect(viaPlan.stdout).toBe(result.stdout);
  });
});

function completedAt(result: Json): number {
  const execute = ((result.timing as Json[]) ?? []).find((t) => t.name === 'execute');
  return Date.parse(String(execute?.completed_at));
}
