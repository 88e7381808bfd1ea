import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metadataOf, readJson, type Json } from '../helpers/artifact-facts.js';
import { makeProject, runCli, type CliResult } from '../helpers/cli.js';
import { CORPUS_DIR, hasCorpus } from '../helpers/corpus.js';

/**
 * What inspect and diff say when a side has no manifest (a docs generate through dbt-rpc whose
 * manifest dbt wrote under another invocation, a catalog alone), and what a failed run leads
 * with. Real sequences captured in order; every expectation is read from the JSON files.
 */
interface Filed {
  id: string;
  files: Set<string>;
  /** When it finished as the store orders runs: its run results' time, else its manifest's, else any. */
  at: number;
  results?: Json;
}

function readFiled(dirs: string[]): Map<string, Filed> {
  const byId = new Map<string, Filed>();
  for (const dir of dirs) {
    for (const file of ['manifest.json', 'run_results.json', 'sources.json', 'catalog.json']) {
      if (!existsSync(path.join(dir, file))) continue;
      const doc = readJson(path.join(dir, file));
      const { invocation_id: id = '', generated_at: at = '' } = metadataOf(doc);
      const filed = byId.get(id) ?? { id, files: new Set<string>(), at: Date.parse(at) };
      filed.files.add(file);
      if (file === 'run_results.json') filed.results = doc;
      if (file === 'run_results.json' || (file === 'manifest.json' && !filed.files.has('run_results.json'))) filed.at = Date.parse(at);
      byId.set(id, filed);
    }
  }
  return byId;
}

const projects: string[] = [];
afterAll(() => projects.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

async function captured(folder: string): Promise<{ cli: (args: string[]) => Promise<CliResult>; filed: Filed[] }> {
  const root = path.join(CORPUS_DIR, folder);
  const dirs = readdirSync(root)
    .sort()
    .map((name) => path.join(root, name));
  const { dir: project } = makeProject();
  projects.push(project);
  const cli = (args: string[]): Promise<CliResult> => runCli(args, { cwd: project });
  for (const dir of dirs) expect(await cli(['--target-path', dir, 'capture', '--quiet']), dir).toMatchObject({ exitCode: 0 });
  return { cli, filed: [...readFiled(dirs).values()].sort((a, b) => a.at - b.at) };
}

const json = async <T>(result: Promise<CliResult>): Promise<T> => {
  const done = await result;
  expect(done.exitCode, done.stderr).toBe(0);
  return JSON.parse(done.stdout) as T;
};

interface ChangesJson {
  manifests: { from: string | null; to: string | null };
  nodes: unknown[] | null;
  statuses: unknown[] | null;
  unknown: { nodes?: string; statuses?: string };
}

describe.skipIf(!hasCorpus)('dbt-demo-pavel: runs without a manifest of their own (docs generate through dbt-rpc, a catalog alone)', () => {
  let cli: (args: string[]) => Promise<CliResult>;
  let filed: Filed[];
  let without: Filed[];
  let first: Filed;
  beforeAll(async () => {
    ({ cli, filed } = await captured('dbt-demo-pavel-snowflake-0.21.0/target-seq'));
    without = filed.filter((f) => !f.files.has('manifest.json'));
    first = filed.find((f) => f.files.has('manifest.json'))!;
  }, 120_000);

  it('diff says the node comparison is unknown, and why, never "no change"', async () => {
    expect(without.length).toBeGreaterThanOrEqual(4);
    for (const side of without) {
      const changes = await json<ChangesJson>(cli(['diff', first.id, side.id, '--json']));
      expect(changes.nodes, side.id).toBeNull();
      expect(changes.unknown.nodes, side.id).toMatch(
        new RegExp(
          `^${side.id.slice(0, 8)}\\S* has no manifest: its manifest was never archived \\(only ${[...side.files]
            .map((f) => f.replace('.json', ''))
            .sort()
            .join(', ')} archived\\)`,
        ),
      );
      const text = await cli(['diff', first.id, side.id]);
      expect(text.stdout).toMatch(/^nodes {7}unknown: /m);
      expect(text.stdout).not.toMatch(/^nodes {7}no change/m);
      if (!side.files.has('run_results.json')) expect(changes.statuses, side.id).toBeNull();
    }
  });

  it('inspect says so too, for every run without a manifest that has a previous run', async () => {
    for (const side of without) {
      const report = await json<{ previous: string | null; changes: ChangesJson | null }>(cli(['inspect', side.id, '--json']));
      if (report.previous === null) continue;
      expect(report.changes!.nodes, side.id).toBeNull();
      expect(report.changes!.unknown.nodes, side.id).toContain('has no manifest');
    }
  });

  it('--nearest compares through the latest earlier run that has a manifest, and names it', async () => {
    for (const side of without) {
      const nearest = filed.filter((f) => f.files.has('manifest.json') && f.at <= side.at).at(-1);
      const result = await cli(['diff', first.id, side.id, '--nearest', '--json']);
      expect(result.exitCode, result.stderr).toBe(0);
      const changes = JSON.parse(result.stdout) as ChangesJson;
      expect(changes.manifests, side.id).toEqual({ from: first.id, to: nearest?.id ?? null });
      expect(Array.isArray(changes.nodes), side.id).toBe(nearest !== undefined);
    }
  });
});

describe.skipIf(!hasCorpus)('learn-dbt-nigel: a failed run', () => {
  it("inspect leads with the run's own failures: node, status, message, as run_results says", async () => {
    const { cli, filed } = await captured('learn-dbt-nigel-snowflake-1.0-to-1.3/target-seq');
    const failed = filed.filter((f) => ((f.results?.results ?? []) as Json[]).some((r) => ['error', 'fail'].includes(String(r.status))));
    expect(failed.length).toBeGreaterThan(0);
    for (const run of failed) {
      const expected = ((run.results!.results ?? []) as Json[])
        .filter((r) => ['error', 'fail', 'runtime error'].includes(String(r.status).toLowerCase()))
        .map((r) => ({ unique_id: r.unique_id, status: String(r.status).toLowerCase(), message: r.message ?? null }))
        .sort((a, b) => String(a.unique_id).localeCompare(String(b.unique_id)));
      const report = await json<{ failures: unknown[] }>(cli(['inspect', run.id, '--json']));
      expect(Object.keys(report)[1]).toBe('failures');
      expect(report.failures).toEqual(expected);
      const text = (await cli(['inspect', run.id])).stdout;
      const lines = text.split('\n');
      const at = lines.findIndex((l) => l.startsWith('failures'));
      expect(lines[at]).toBe(`failures    ${expected.length}`);
      for (const [i, f] of expected.entries()) expect(lines[at + 1 + i]).toBe(`  ${f.status} ${String(f.unique_id)}: ${String(f.message).split('\n')[0]}`);
      expect(at).toBeLessThan(lines.findIndex((l) => l.startsWith('code')));
    }
  }, 120_000);
});
