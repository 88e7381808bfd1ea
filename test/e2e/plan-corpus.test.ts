import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PlanResult } from '../../src/plan/index.js';
import type { Json } from '../helpers/artifact-facts.js';
import { makeProject, putTarget, runCli } from '../helpers/cli.js';
import { CORPUS_DIR, hasCorpus } from '../helpers/corpus.js';

/**
 * Plans over real sequences of the corpus (read in place). Each step's manifest is captured
 * alone first and planned, as after a `dbt parse`, then the step's other artifacts follow.
 * Expected verdicts come from the JSON: a model or seed that succeeded in the previous step's
 * run (whose manifest is that run's own), with the same checksum, config, relation and called
 * macros now, whose parents are all such nodes that finished before it, reads no source and
 * so must be reused; one whose checksum changed must build.
 */
/**
 * Each sequence and what its JSON offers at least (rembo: seeds and the models built on them
 * reuse; two of its models have a space in their name, which no word given to dbt can select).
 */
const SEQUENCES: [string, { reuse: number; build: number; spaced: number }][] = [
  ['rembo-dbt-prod/target-seq', { reuse: 1, build: 1, spaced: 1 }],
  ['learn-dbt-nigel-snowflake-1.0-to-1.3/target-seq', { reuse: 0, build: 1, spaced: 0 }],
];
const read = (file: string): Json | null => (existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Json) : null);
const meta = (doc: Json): Json => (doc.metadata ?? {}) as Json;
const nodes = (manifest: Json): Record<string, Json> => (manifest.nodes ?? {}) as Record<string, Json>;

interface Expected {
  reuse: string[];
  build: string[];
}

/** What the previous step's build and the new manifest say, independently of dbtattic. */
function expectations(prevManifest: Json, prevResults: Json, next: Json): Expected {
  const before = nodes(prevManifest);
  const now = nodes(next);
  const finished = new Map<string, number>();
  for (const r of (prevResults.results as Json[]) ?? []) {
    const done = ((r.timing as Json[]) ?? []).find((t) => t.name === 'execute')?.completed_at;
    if (r.status === 'success' && typeof done === 'string') finished.set(String(r.unique_id), Date.parse(done));
  }
  const macroSql = (manifest: Json, id: string): unknown => ((manifest.macros ?? {}) as Record<string, Json>)[id]?.macro_sql;
  const same = (id: string): boolean => {
    const [a, b] = [before[id], now[id]];
    if (!a || !b) return false;
    const pick = (n: Json): string => JSON.stringify([(n.checksum as Json)?.checksum, n.config, n.database, n.schema, n.alias, (n.depends_on as Json)?.macros]);
    const macros = (((b.depends_on as Json)?.macros as string[]) ?? []).every((m) => macroSql(prevManifest, m) === macroSql(next, m));
    return pick(a) === pick(b) && macros;
  };
  const memo = new Map<string, boolean>();
  const reusable = (id: string): boolean => {
    if (memo.has(id)) return memo.get(id)!;
    memo.set(id, false);
    const parents = ((now[id]?.depends_on as Json)?.nodes as string[]) ?? [];
    const ok = finished.has(id) && same(id) && parents.every((p) => reusable(p) && finished.get(p)! < finished.get(id)!);
    memo.set(id, ok);
    return ok;
  };
  const candidates = [...finished.keys()].filter(
    (id) => ['model', 'seed'].includes(String(now[id]?.resource_type)) && (now[id]?.config as Json)?.materialized !== 'ephemeral',
  );
  return {
    reuse: candidates.filter(reusable),
    build: candidates.filter((id) => before[id] && (before[id]!.checksum as Json)?.checksum !== (now[id]!.checksum as Json)?.checksum),
  };
}

async function capture(dir: string, files: Record<string, string>): Promise<void> {
  for (const name of ['manifest.json', 'run_results.json', 'sources.json', 'catalog.json']) rmSync(path.join(dir, 'target', name), { force: true });
  putTarget(path.join(dir, 'target'), files);
  const result = await runCli(['capture', '--quiet'], { cwd: dir });
  expect(result.exitCode, result.stderr).toBe(0);
}

/**
 * `--format selector` and `exclude` print each list as words, or refuse (exit 2, printing
 * nothing) when a node's name in the manifest holds white space: dbt would split it and select
 * other nodes. Returns how many lists were refused.
 */
async function checkWords(dir: string, manifest: Json, verdicts: PlanResult['nodes']): Promise<number> {
  let refused = 0;
  for (const [format, verdict] of [
    ['selector', 'build'],
    ['exclude', 'reuse'],
  ] as const) {
    const listed = verdicts.filter((v) => v.verdict === verdict);
    const spaced = listed.filter((v) => /\s/.test(String(nodes(manifest)[v.unique_id]?.name ?? '')));
    const words = await runCli(['plan', '--no-record', '--format', format], { cwd: dir });
    if (spaced.length === 0) {
      expect(words.exitCode, words.stderr).toBe(0);
      expect(words.stdout.split(/\s+/).filter(Boolean)).toEqual(listed.map((v) => v.selector));
      continue;
    }
    refused++;
    expect(words.exitCode).toBe(2);
    expect(words.stdout).toBe('');
    expect(words.stderr).toContain(spaced[0]!.unique_id);
  }
  return refused;
}

describe.skipIf(!hasCorpus)('plan on real sequences (corpus)', () => {
  it.each(SEQUENCES)(
    '%s: unchanged nodes reuse, changed ones build',
    async (sequence, least) => {
      const root = path.join(CORPUS_DIR, sequence);
      const steps = readdirSync(root)
        .sort()
        .map((d) => path.join(root, d));
      const project = makeProject();
      const seen = { reuse: 0, build: 0, spaced: 0 };
      try {
        let prev: { manifest: Json; results: Json } | null = null;
        for (const step of steps) {
          const manifest = read(path.join(step, 'manifest.json'));
          const results = read(path.join(step, 'run_results.json'));
          if (manifest && prev) {
            await capture(project.dir, { 'manifest.json': path.join(step, 'manifest.json') });
            const plan = await runCli(['plan', '--json'], { cwd: project.dir });
            expect(plan.exitCode, plan.stderr).toBe(0);
            const verdicts = new Map((JSON.parse(plan.stdout) as PlanResult).nodes.map((n) => [n.unique_id, n]));
            const expected = expectations(prev.manifest, prev.results, manifest);
            for (const id of expected.reuse) expect(verdicts.get(id), `${path.basename(step)} ${id}`).toMatchObject({ verdict: 'reuse' });
            for (const id of expected.build) expect(verdicts.get(id), `${path.basename(step)} ${id}`).toMatchObject({ verdict: 'build' });
            seen.reuse += expected.reuse.length;
            seen.build += expected.build.length;
            seen.spaced += await checkWords(project.dir, manifest, [...verdicts.values()]);
          }
          const files = Object.fromEntries(
            readdirSync(step)
              .filter((f) => f.endsWith('.json'))
              .map((f) => [f, path.join(step, f)]),
          );
          await capture(project.dir, files);
          // The next plan may count this step's build only when the run's own manifest is here.
          const own =
            manifest && results && meta(manifest).invocation_id === meta(results).invocation_id && (results.args as Json | undefined)?.which !== 'generate';
          prev = own ? { manifest: manifest!, results: results! } : null;
        }
        expect(seen.reuse, 'reuse cases checked').toBeGreaterThanOrEqual(least.reuse);
        expect(seen.build, 'build cases checked').toBeGreaterThanOrEqual(least.build);
        expect(seen.spaced, 'lists with a spaced name checked').toBeGreaterThanOrEqual(least.spaced);
      } finally {
        rmSync(project.dir, { recursive: true, force: true });
      }
    },
    300_000,
  );

  it('jaffle-shop: with no run ever archived, every node is new or never built, as the two manifests say', async () => {
    const root = path.join(CORPUS_DIR, 'dbt-labs-jaffle-shop');
    const [first, second] = readdirSync(root)
      .sort()
      .map((d) => path.join(root, d, 'manifest.json'));
    const project = makeProject();
    try {
      await capture(project.dir, { 'manifest.json': first! });
      await capture(project.dir, { 'manifest.json': second! });
      const plan = await runCli(['plan', '--json'], { cwd: project.dir });
      expect(plan.exitCode, plan.stderr).toBe(0);
      const before = nodes(read(first!)!);
      const planned = Object.entries(nodes(read(second!)!)).filter(
        ([, n]) => ['model', 'seed', 'snapshot', 'test'].includes(String(n.resource_type)) && (n.config as Json)?.materialized !== 'ephemeral',
      );
      const got = Object.fromEntries((JSON.parse(plan.stdout) as PlanResult).nodes.map((n) => [n.unique_id, `${n.verdict} ${n.reason}`]));
      expect(got).toEqual(Object.fromEntries(planned.map(([id]) => [id, before[id] ? 'build never built on this target' : 'build new'])));
    } finally {
      rmSync(project.dir, { recursive: true, force: true });
    }
  }, 120_000);
});
