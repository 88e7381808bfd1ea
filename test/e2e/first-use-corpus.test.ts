import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlanResult } from '../../src/plan/index.js';
import { metadataOf, readJson, type Json } from '../helpers/artifact-facts.js';
import { makeProject, putTarget, runCli } from '../helpers/cli.js';
import { CORPUS_DIR, hasCorpus } from '../helpers/corpus.js';

/**
 * What a new user meets on a real history (issue 44, items 7 to 10): rembo-dbt-prod's target/,
 * committed step by step, captured as it was after each step. Every expectation is read from
 * the artifacts' JSON here, not from dbtattic.
 */
const ROOT = path.join(CORPUS_DIR, 'rembo-dbt-prod', 'target-seq');
const steps = hasCorpus
  ? readdirSync(ROOT)
      .sort()
      .map((d) => path.join(ROOT, d))
  : [];
const artifact = (step: string, file: string): Json | null => (existsSync(path.join(step, file)) ? readJson(path.join(step, file)) : null);
const idOf = (doc: Json | null): string => String(metadataOf(doc ?? {}).invocation_id);
const nodesOf = (manifest: Json): Record<string, Json> => (manifest.nodes ?? {}) as Record<string, Json>;
const results = (runResults: Json): Json[] => (runResults.results ?? []) as Json[];

/** The step whose run_results and manifest are one build's own, the largest: target/ as that build left it. */
function finishedBuild(): string {
  const own = steps.filter((s) => {
    const [manifest, run] = [artifact(s, 'manifest.json'), artifact(s, 'run_results.json')];
    return manifest && run && idOf(manifest) === idOf(run) && ['build', 'run'].includes(String((run.args as Json).which));
  });
  return own.reduce((a, b) => (results(artifact(b, 'run_results.json')!).length > results(artifact(a, 'run_results.json')!).length ? b : a));
}

describe.skipIf(!hasCorpus)('a real history as a new user meets it (rembo-dbt-prod)', () => {
  let project: { dir: string; target: string };
  const largest = hasCorpus ? finishedBuild() : '';
  const built = (): string => largest;
  const upTo = (): string[] => steps.slice(0, steps.indexOf(built()) + 1);

  async function capture(files: Record<string, string>): Promise<void> {
    for (const name of ['manifest.json', 'run_results.json', 'sources.json', 'catalog.json']) rmSync(path.join(project.target, name), { force: true });
    putTarget(project.target, files);
    const result = await runCli(['capture', '--quiet'], { cwd: project.dir });
    expect(result.exitCode, result.stderr).toBe(0);
  }
  const wholeStep = (step: string): Record<string, string> =>
    Object.fromEntries(
      readdirSync(step)
        .filter((f) => f.endsWith('.json'))
        .map((f) => [f, path.join(step, f)]),
    );

  beforeAll(async () => {
    project = makeProject();
    for (const step of upTo()) await capture(wholeStep(step));
  }, 300_000);
  afterAll(() => rmSync(project.dir, { recursive: true, force: true }));

  it('plan right after a build says target/ holds that finished build and to run dbt parse, verdicts unchanged (item 7)', async () => {
    const step = built();
    await capture(wholeStep(step));
    const id = idOf(artifact(step, 'run_results.json'));
    const plan = JSON.parse((await runCli(['plan', '--no-record', '--json'], { cwd: project.dir })).stdout) as PlanResult;
    expect(plan.invocation_id).toBe(id);
    const notice = plan.notices.find((n) => n.code === 'finished-build');
    expect(notice?.message).toContain(id);
    expect(notice?.message).toContain('dbt parse');
    const table = await runCli(['plan', '--no-record'], { cwd: project.dir });
    expect(table.exitCode, table.stderr).toBe(0);
    expect(table.stderr).toContain(`target/ holds a finished build (dbt build with ${results(artifact(step, 'run_results.json')!).length} results`);
    // The same verdicts as planning that invocation by name: the notice changes nothing else.
    const named = JSON.parse((await runCli(['plan', '--no-record', '--json', '--invocation', id], { cwd: project.dir })).stdout) as PlanResult;
    expect(named.nodes).toEqual(plan.nodes);
    expect(named.notices.find((n) => n.code === 'finished-build')?.message).not.toContain('dbt parse');
    // explain, of any of its nodes, says it too.
    const explained = await runCli(['explain', plan.nodes[0]!.unique_id], { cwd: project.dir });
    expect(explained.exitCode, explained.stderr).toBe(0);
    expect(explained.stderr).toContain('target/ holds a finished build');
  }, 120_000);

  it("show falls back to the manifest's compiled code when no SQL file was archived (item 9)", async () => {
    const compiled = (step: string, id: string): string | null => {
      const node = nodesOf(artifact(step, 'manifest.json') ?? {})[id];
      const code = node?.compiled_code ?? node?.compiled_sql;
      return node?.compiled === true && typeof code === 'string' ? code : null;
    };
    const [id, node] = Object.entries(nodesOf(artifact(built(), 'manifest.json')!)).find(
      ([key]) => key.startsWith('model.') && compiled(built(), key) !== null,
    )!;
    const newest = upTo().findLast((s) => compiled(s, id) !== null)!;
    const name = String(node.name);
    const shown = await runCli(['show', name, '--json'], { cwd: project.dir });
    expect(shown.exitCode, shown.stderr).toBe(0);
    const json = JSON.parse(shown.stdout) as { invocation_id: string; unique_id: string; compiled: { from: string; sql: string } | null };
    expect(json).toMatchObject({
      invocation_id: idOf(artifact(newest, 'manifest.json')),
      unique_id: id,
      compiled: { from: 'manifest', sql: compiled(newest, id) },
    });
    const only = await runCli(['show', name, '--compiled'], { cwd: project.dir });
    expect(only.stdout).toBe(compiled(newest, id));
    expect(only.stderr).toContain('compiled_code');
  }, 120_000);

  it('show tells a name no manifest has apart: a typo, exit 2 with the nearest names, not exit 3 (item 9)', async () => {
    const name = String(Object.values(nodesOf(artifact(built(), 'manifest.json')!)).find((n) => n.resource_type === 'model')!.name);
    const typo = await runCli(['show', name.slice(0, -1)], { cwd: project.dir });
    expect(typo.exitCode).toBe(2);
    expect(typo.stderr).toContain(`'${name}'`);
    const unknown = await runCli(['show', 'nosuchmodel'], { cwd: project.dir });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).not.toContain('No SQL is archived');
  }, 120_000);

  it('plan names the manifest filed beside a run that has none of its own, not dbt parse (item 10)', async () => {
    const step = upTo().find(
      (s) => artifact(s, 'manifest.json') && artifact(s, 'run_results.json') && idOf(artifact(s, 'manifest.json')) !== idOf(artifact(s, 'run_results.json')),
    )!;
    const [run, manifest] = [idOf(artifact(step, 'run_results.json')), idOf(artifact(step, 'manifest.json'))];
    // history lists the run: "List them with 'dbtattic history'" would send the user in a circle.
    const history = await runCli(['history', '--json', '--limit', '100'], { cwd: project.dir });
    expect(history.stdout).toContain(run);
    const plan = await runCli(['plan', '--no-record', '--invocation', run.slice(0, 8)], { cwd: project.dir });
    expect(plan.exitCode).toBe(3);
    expect(plan.stderr).not.toContain('dbt parse');
    expect(plan.stderr).toContain(`--invocation ${manifest}`);
    expect(plan.stderr).toContain(`${results(artifact(step, 'run_results.json')!).length} run results`);
  }, 120_000);

  it('state names the manifest filed beside a run that has none of its own, not history (item 10)', async () => {
    const step = upTo().find(
      (s) => artifact(s, 'manifest.json') && artifact(s, 'run_results.json') && idOf(artifact(s, 'manifest.json')) !== idOf(artifact(s, 'run_results.json')),
    )!;
    const [run, manifest] = [idOf(artifact(step, 'run_results.json')), idOf(artifact(step, 'manifest.json'))];
    const state = await runCli(['state', '--invocation', run.slice(0, 8)], { cwd: project.dir });
    expect(state.exitCode).toBe(3);
    expect(state.stdout).toBe('');
    expect(state.stderr).not.toContain('dbtattic history');
    expect(state.stderr).toContain(`has no manifest of its own`);
    expect(state.stderr).toContain(`state --invocation ${manifest}`);
  }, 120_000);

  it('plan says once, with the command, when only missing freshness checks keep nodes from reuse (item 8)', async () => {
    const build = built();
    const next = steps[steps.indexOf(build) + 1]!;
    const [before, now, run] = [artifact(build, 'manifest.json')!, artifact(next, 'manifest.json')!, artifact(build, 'run_results.json')!];
    // No freshness check was ever taken after that build: sources.json appears only before it.
    const checksAfter = steps.slice(steps.indexOf(build)).filter((s) => artifact(s, 'sources.json'));
    expect(checksAfter).toEqual([]);
    // Nodes that read sources alone, succeeded in the build, and are unchanged since: only freshness stops them.
    const succeeded = new Set(
      results(run)
        .filter((r) => r.status === 'success')
        .map((r) => String(r.unique_id)),
    );
    const same = (a: Json | undefined, b: Json): boolean =>
      !!a && JSON.stringify([a.checksum, a.config, (a.depends_on as Json).macros]) === JSON.stringify([b.checksum, b.config, (b.depends_on as Json).macros]);
    const held = Object.entries(nodesOf(now)).filter(([id, n]) => {
      const parents = ((n.depends_on as Json).nodes ?? []) as string[];
      return succeeded.has(id) && same(nodesOf(before)[id], n) && parents.length > 0 && parents.every((p) => p.startsWith('source.'));
    });
    expect(held.length).toBeGreaterThan(0);
    await capture({ 'manifest.json': path.join(next, 'manifest.json') });
    const plan = JSON.parse((await runCli(['plan', '--no-record', '--json'], { cwd: project.dir })).stdout) as PlanResult;
    expect(plan.notices.map((n) => n.code)).toEqual(['freshness-unknown']);
    const notice = plan.notices[0]!.message;
    expect(Number(/^(\d+) nodes? build/.exec(notice)?.[1])).toBeGreaterThanOrEqual(held.length);
    expect(notice).toContain('dbt source freshness');
    const table = await runCli(['plan', '--no-record'], { cwd: project.dir });
    expect(table.stderr.split('dbt source freshness').length - 1).toBe(1);
    expect(table.stdout).not.toContain('dbt source freshness');
  }, 120_000);
});
