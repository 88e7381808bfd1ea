import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareManifests, metadataOf, nodesDependingOnChangedMacros, readJson, resultStatuses, statusChanges, type Json } from '../helpers/artifact-facts.js';
import { makeProject, runCli } from '../helpers/cli.js';
import { CORPUS_DIR, hasCorpus } from '../helpers/corpus.js';

/**
 * Real sequences of the corpus captured in order with `dbtattic capture`, then inspect and diff
 * checked against facts read from the JSON files. In a corpus folder the manifest and the run
 * results can come from different invocations, and two folders can hold the same invocation:
 * files are grouped by their own invocation_id, the newest copy of each artifact winning.
 */
interface Invocation {
  id: string;
  manifest?: Json;
  results?: Json;
  /** When it finished as the store orders runs: the results file's time, else the manifest's. */
  at: string;
}
interface Changes {
  from: string;
  to: string;
  nodes: { unique_id: string; change: string }[];
  statuses: { unique_id: string; from_status: string; to_status: string }[] | null;
}

const projects: string[] = [];
afterAll(() => projects.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function readSequence(dirs: string[]): Map<string, Invocation> {
  const byId = new Map<string, Invocation>();
  const newest = new Map<string, string>();
  for (const dir of dirs) {
    for (const [file, key] of [
      ['manifest.json', 'manifest'],
      ['run_results.json', 'results'],
      ['sources.json', null],
      ['catalog.json', null],
    ] as const) {
      if (!existsSync(path.join(dir, file))) continue;
      const doc = readJson(path.join(dir, file));
      const { invocation_id: id = '', generated_at: at = '' } = metadataOf(doc);
      const invocation = byId.get(id) ?? { id, at };
      if (key !== null && (newest.get(`${id} ${key}`) ?? '') < at) {
        invocation[key] = doc;
        newest.set(`${id} ${key}`, at);
      }
      invocation.at = metadataOf(invocation.results ?? invocation.manifest ?? doc).generated_at ?? at;
      byId.set(id, invocation);
    }
  }
  return byId;
}

const targetOf = (inv: Invocation): string | null => (inv.results?.args as { target?: string } | undefined)?.target ?? null;

/** The previous run inspect compares with: same target (any when unknown), with a manifest, latest before. */
function expectedPrevious(all: Invocation[], inv: Invocation): Invocation | null {
  const candidates = all.filter((p) => p.manifest && p.id !== inv.id && p.at < inv.at && (targetOf(inv) === null || targetOf(p) === targetOf(inv)));
  return candidates.sort((a, b) => a.at.localeCompare(b.at)).at(-1) ?? null;
}

function expectChanges(changes: Changes, from: Invocation, to: Invocation, where: string): void {
  const expected = compareManifests(from.manifest!, to.manifest!);
  const ids = (kind: (c: string) => boolean): string[] =>
    changes.nodes
      .filter((n) => kind(n.change))
      .map((n) => n.unique_id)
      .sort();
  expect(
    ids((c) => c === 'added'),
    `${where}: added`,
  ).toEqual(expected.added);
  expect(
    ids((c) => c === 'removed'),
    `${where}: removed`,
  ).toEqual(expected.removed);
  const changed = ids((c) => c !== 'added' && c !== 'removed');
  expect(changed, `${where}: nodes whose code changed`).toEqual(expect.arrayContaining(expected.codeChanged));
  // Cosmetic means the code, or a macro it depends on, changed while the fingerprint did not.
  const touched = [...expected.codeChanged, ...nodesDependingOnChangedMacros(from.manifest!, to.manifest!)];
  expect(touched, `${where}: cosmetic without a change of code`).toEqual(expect.arrayContaining(ids((c) => c === 'cosmetic')));
  // A side without run results: the statuses are unknown, not unchanged.
  const statuses = from.results && to.results ? statusChanges(resultStatuses(from.results), resultStatuses(to.results)) : null;
  expect(changes.statuses, `${where}: statuses`).toEqual(statuses);
}

/** Captures the folders in order into a new project, then checks inspect of every run with a manifest, and diff first → last. */
async function checkSequence(
  folder: string,
  options: { pick?: (name: string) => boolean; args?: string[]; env?: Record<string, string>; branch: string | null },
): Promise<{ invocations: Invocation[]; nodeChanges: number }> {
  const root = path.join(CORPUS_DIR, folder);
  const dirs = readdirSync(root)
    .filter(options.pick ?? (() => true))
    .sort()
    .map((name) => path.join(root, name));
  const { dir: project } = makeProject();
  projects.push(project);
  const cli = (args: string[]) => runCli(args, { cwd: project, env: options.env });
  for (const dir of dirs) {
    const captured = await cli(['--target-path', dir, 'capture', '--quiet', ...(options.args ?? [])]);
    expect(captured, `capture ${dir}`).toMatchObject({ exitCode: 0 });
  }

  const all = [...readSequence(dirs).values()];
  const history = JSON.parse((await cli(['history', '--limit', '1000', '--json'])).stdout) as { invocation_id: string; branch: string | null }[];
  expect(history.map((h) => h.invocation_id).sort()).toEqual(all.map((inv) => inv.id).sort());
  expect(new Set(history.map((h) => h.branch))).toEqual(new Set([options.branch]));

  let nodeChanges = 0;
  const withManifest = all.filter((inv) => inv.manifest).sort((a, b) => a.at.localeCompare(b.at));
  for (const inv of withManifest) {
    const result = await cli(['inspect', inv.id, '--json']);
    expect(result.exitCode, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { previous: string | null; changes: Changes | null; invocation: Record<string, unknown> };
    expect(report.invocation).toMatchObject({
      dbt_version: metadataOf(inv.manifest!).dbt_version,
      adapter_type: metadataOf(inv.manifest!).adapter_type,
      target: targetOf(inv),
    });
    const previous = expectedPrevious(all, inv);
    expect(report.previous, `previous of ${inv.id}`).toBe(previous?.id ?? null);
    if (previous) expectChanges(report.changes!, previous, inv, `${previous.id} → ${inv.id}`);
    nodeChanges += report.changes?.nodes.length ?? 0;
  }

  // v_node_changes, by the same rule: a called macro counts as changed only when its SQL did.
  const viewRows = JSON.parse(
    (
      await cli([
        'query',
        '--json',
        "SELECT unique_id, from_invocation, to_invocation, change_kind FROM v_node_changes WHERE list_contains(what_changed, 'macros') OR change_kind = 'cosmetic'",
      ])
    ).stdout,
  ) as { unique_id: string; from_invocation: string; to_invocation: string }[];
  const byId = new Map(all.map((inv) => [inv.id, inv]));
  for (const row of viewRows) {
    const [from, to] = [byId.get(row.from_invocation)!.manifest!, byId.get(row.to_invocation)!.manifest!];
    const touched = [...compareManifests(from, to).codeChanged, ...nodesDependingOnChangedMacros(from, to)];
    expect(touched, `v_node_changes ${row.from_invocation} → ${row.to_invocation}`).toContain(row.unique_id);
  }

  const [first, last] = [withManifest[0]!, withManifest.at(-1)!];
  const diff = await cli(['diff', first.id.slice(0, 12), last.id.slice(0, 12), '--json']);
  expect(diff.exitCode, diff.stderr).toBe(0);
  expectChanges(JSON.parse(diff.stdout) as Changes, first, last, `diff ${first.id} ${last.id}`);
  return { invocations: all, nodeChanges };
}

describe.skipIf(!hasCorpus)('inspect and diff on real sequences captured in order', () => {
  it('learn-dbt-nigel (dbt 1.0 → 1.3, manifest v4 → v7, errors and skips), on no branch', async () => {
    const { invocations, nodeChanges } = await checkSequence('learn-dbt-nigel-snowflake-1.0-to-1.3/target-seq', { branch: null });
    // The folder of 05 holds a manifest and results of two invocations; 06 the sources of the first.
    expect(invocations.filter((inv) => inv.manifest && !inv.results)).not.toHaveLength(0);
    expect(nodeChanges).toBeGreaterThan(0);
  }, 120_000);

  it('rembo-dbt-prod (dbt 1.9, two folders holding one invocation), on a branch given by --branch', async () => {
    const { invocations, nodeChanges } = await checkSequence('rembo-dbt-prod/target-seq', {
      pick: (name) => name >= '06' && name < '10',
      args: ['--branch', 'prod'],
      branch: 'prod',
    });
    expect(invocations.length).toBeLessThan(8);
    expect(nodeChanges).toBeGreaterThan(0);
  }, 120_000);

  it('dbt-labs-jaffle-shop (two manifests, no results), on a branch given by DBTATTIC_BRANCH', async () => {
    const { invocations } = await checkSequence('dbt-labs-jaffle-shop', { env: { DBTATTIC_BRANCH: 'state' }, branch: 'state' });
    expect(invocations).toHaveLength(2);
  }, 60_000);
});
