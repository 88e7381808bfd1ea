import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Step } from '../../fixtures/generate.mjs';
import {
  changedMacroNames,
  changedMacros,
  compareManifests,
  countStatuses,
  enabledNodes,
  metadataOf,
  nodesCalling,
  resultStatuses,
  statusChanges,
  type Json,
} from '../helpers/artifact-facts.js';
import { replayedHistory, type ReplayedHistory } from '../helpers/replay.js';

/**
 * The fixture history (fixtures/README.md) replayed through `dbtattic run` into a git
 * repository; inspect, diff and query are then checked against the commits the replay made
 * and against facts read from each step's own artifacts, not from dbtattic's store.
 */
interface NodeChange {
  unique_id: string;
  change: string;
  aspects: string[];
}
interface Changes {
  macros: { unique_id: string; change: string }[];
  from: string;
  to: string;
  same_code: boolean | null;
  git: { from: string | null; to: string | null; range: string | null };
  nodes: NodeChange[];
  statuses: { unique_id: string; from_status: string; to_status: string }[];
}
interface Inspect {
  invocation: Record<string, unknown>;
  triplet: { run: { invocation_id: string; run_id: string }; code: Record<string, unknown>; data: Record<string, unknown> };
  previous: string | null;
  changes: Changes | null;
}

let replay: ReplayedHistory;
beforeAll(async () => {
  replay = await replayedHistory();
  fingerprintRows = await replay.json(['query', '--json', 'SELECT invocation_id, unique_id, fingerprint FROM node_invocation WHERE fingerprint IS NOT NULL']);
}, 120_000);
afterAll(() => replay?.remove());

const idOf = (n: number): string => replay.step(n).invocation_id;
const manifestOf = (step: Step): Json | null => replay.artifactOf(step, 'manifest.json');
const diff = (a: string, b: string): Promise<Changes> => replay.json<Changes>(['diff', a, b, '--json']);
let fingerprintRows: { invocation_id: string; unique_id: string; fingerprint: string }[] = [];
/** unique_id → fingerprint of the nodes of a step's invocation, read with one query for all steps. */
function fingerprints(n: number): Map<string, string> {
  return new Map(fingerprintRows.filter((row) => row.invocation_id === idOf(n)).map((row) => [row.unique_id, row.fingerprint]));
}

/** The target a step ran against, as its own run_results says; null when it wrote none. */
/** The project's profile, read from the fixture's own profiles.yml: dbt's target when --target is not typed. */
const PROFILE_TARGET = (yaml.load(readFileSync(new URL('../../fixtures/project/profiles.yml', import.meta.url), 'utf8')) as { attic_shop: { target: string } })
  .attic_shop.target;

function targetOf(step: Step): string | null {
  const args = replay.artifactOf(step, 'run_results.json')?.args as { target?: string } | undefined;
  return args?.target ?? PROFILE_TARGET;
}

/** dbt's `which`, named as its users type the command. */
const TYPED_COMMAND: Record<string, string> = { generate: 'docs generate' };

/** The run inspect compares with: the latest earlier manifest on the branch, of the same target (any, when the target is unknown). */
function expectedPrevious(step: Step): Step | null {
  const earlier = replay.steps.filter((s) => s.step < step.step && manifestOf(s) !== null);
  const target = targetOf(step);
  return earlier.filter((s) => target === null || targetOf(s) === target).at(-1) ?? null;
}

/** Nodes that changed between two manifests: by code or file, or through a project macro they call. */
function expectedChanged(from: Json, to: Json): { added: string[]; removed: string[]; changed: string[] } {
  const { added, removed, codeChanged } = compareManifests(from, to);
  const viaMacro = nodesCalling(to, changedMacroNames(from, to));
  return { added, removed, changed: [...new Set([...codeChanged, ...viaMacro])].sort() };
}

function splitNodes(nodes: NodeChange[]): { added: string[]; removed: string[]; changed: string[] } {
  const ids = (keep: (n: NodeChange) => boolean): string[] =>
    nodes
      .filter(keep)
      .map((n) => n.unique_id)
      .sort();
  return {
    added: ids((n) => n.change === 'added'),
    removed: ids((n) => n.change === 'removed'),
    changed: ids((n) => n.change !== 'added' && n.change !== 'removed'),
  };
}

/** null when a side wrote no run_results: the statuses cannot be compared, which is not "no change". */
function expectedStatusChanges(from: Step, to: Step): ReturnType<typeof statusChanges> | null {
  const a = replay.artifactOf(from, 'run_results.json');
  const b = replay.artifactOf(to, 'run_results.json');
  return a && b ? statusChanges(resultStatuses(a), resultStatuses(b)) : null;
}

describe('the fixture history replayed through dbtattic run', () => {
  it("exits with dbt's exit code at every step and files every invocation on main", async () => {
    expect([...replay.exitCodes.entries()]).toEqual(replay.steps.map((s) => [s.step, s.exit_code]));
    const history = await replay.json<{ invocation_id: string; branch: string }[]>(['history', '--limit', '100', '--json']);
    expect(history.map((h) => h.invocation_id).sort()).toEqual(replay.steps.map((s) => s.invocation_id).sort());
    expect(new Set(history.map((h) => h.branch))).toEqual(new Set(['main']));
  });

  it('inspect reports, for every step, its code, run and results, and what changed since the previous run', async () => {
    for (const step of replay.steps) {
      const report = await replay.json<Inspect>(['inspect', step.invocation_id.slice(0, 8), '--json']);
      const manifest = manifestOf(step)!;
      const results = replay.artifactOf(step, 'run_results.json') ?? replay.artifactOf(step, 'sources.json');
      const runArgs = replay.artifactOf(step, 'run_results.json')?.args as { which?: string; target?: string } | undefined;
      const where = `step ${step.step}`;
      expect(report.triplet.run.invocation_id, where).toBe(step.invocation_id);
      expect(report.triplet.run.run_id, where).toEqual(expect.any(String));
      expect(report.triplet.code, where).toMatchObject({
        git_sha: replay.shaAfter.get(step.step),
        git_branch: 'main',
        git_dirty: false,
        context_taken: 'run-start',
      });
      expect(report.invocation, where).toMatchObject({
        dbt_version: metadataOf(manifest).dbt_version,
        adapter_type: metadataOf(manifest).adapter_type,
        target: targetOf(step),
        command: runArgs?.which ? (TYPED_COMMAND[runArgs.which] ?? runArgs.which) : step.command.replace(/^dbt /, ''),
        run_command_line: step.command,
        run_exit_code: step.exit_code,
        branch: 'main',
        status_counts: results ? countStatuses(resultStatuses(results)) : null,
      });

      const previous = expectedPrevious(step);
      expect(report.previous, where).toBe(previous?.invocation_id ?? null);
      if (!previous) continue;
      expect(report.changes!.git.range, where).toBe(`${replay.shaAfter.get(previous.step)}..${replay.shaAfter.get(step.step)}`);
      expect(splitNodes(report.changes!.nodes), where).toEqual(expectedChanged(manifestOf(previous)!, manifest));
      expect(report.changes!.statuses, where).toEqual(expectedStatusChanges(previous, step));
    }
  });

  it('step 02, a comment and blank lines: cosmetic, with the same node and project fingerprints', async () => {
    const [one, two] = [replay.step(1), replay.step(2)];
    expect(compareManifests(manifestOf(one)!, manifestOf(two)!).codeChanged).toEqual(['model.attic_shop.customers']);
    const changes = await diff(one.invocation_id, two.invocation_id);
    // Both runs compiled it, and dbt keeps comments in compiled SQL: the compiled file differs too.
    expect(changes.nodes).toEqual([
      { unique_id: 'model.attic_shop.customers', resource_type: 'model', change: 'cosmetic', aspects: ['raw_code', 'checksum', 'compiled_sql'] },
    ]);
    expect(changes.same_code).toBe(true);
    expect(fingerprints(2).get('model.attic_shop.customers')).toBe(fingerprints(1).get('model.attic_shop.customers'));
    const codes = await replay.json<{ code_fingerprint: string }[]>([
      'query',
      '--json',
      `SELECT code_fingerprint FROM invocation WHERE invocation_id IN ('${idOf(1)}', '${idOf(2)}')`,
    ]);
    expect(codes).toHaveLength(2);
    expect(codes[0]!.code_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(codes[1]!.code_fingerprint).toBe(codes[0]!.code_fingerprint);
  });

  it('step 03, a changed filter: semantic, with a new project fingerprint', async () => {
    const changes = await diff(idOf(2), idOf(3));
    expect(changes.nodes.map((n) => [n.unique_id, n.change])).toEqual([['model.attic_shop.customers', 'semantic']]);
    expect(changes.same_code).toBe(false);
    expect(fingerprints(3).get('model.attic_shop.customers')).not.toBe(fingerprints(2).get('model.attic_shop.customers'));
  });

  it('step 05, a changed string literal: semantic; its failing test goes pass → fail, what is downstream is skipped', async () => {
    const [two, four, five] = [replay.step(2), replay.step(4), replay.step(5)];
    const changes = await diff(four.invocation_id.slice(0, 8), five.invocation_id.slice(0, 8));
    expect(changes.nodes.map((n) => [n.unique_id, n.change])).toEqual([['model.attic_shop.orders', 'semantic']]);
    expect(changes.git.range).toBe(`${replay.shaAfter.get(4)}..${replay.shaAfter.get(5)}`);
    expect(changes.statuses).toEqual(expectedStatusChanges(four, five));
    expect(changes.statuses).toContainEqual({ unique_id: 'model.attic_shop.customers', from_status: 'success', to_status: 'skipped' });
    // Step 04 built only stg_customers+, so the failing test's pass is step 02's full build.
    const sinceBuild = await diff(two.invocation_id, five.invocation_id);
    expect(sinceBuild.statuses).toEqual(expectedStatusChanges(two, five));
    expect(sinceBuild.statuses).toContainEqual({
      unique_id: 'test.attic_shop.not_null_orders_status_group.98665510ab',
      from_status: 'pass',
      to_status: 'fail',
    });
    expect(sinceBuild.statuses.filter((s) => s.to_status === 'skipped').map((s) => s.unique_id)).toContain('model.attic_shop.order_totals');
  });

  it('step 10, a changed macro: the fingerprints of exactly the nodes that call it change', async () => {
    const [nine, ten] = [replay.step(9), replay.step(10)];
    expect(changedMacroNames(manifestOf(nine)!, manifestOf(ten)!)).toEqual(['cents_to_dollars']);
    expect(compareManifests(manifestOf(nine)!, manifestOf(ten)!).codeChanged).toEqual([]);
    const callers = nodesCalling(manifestOf(ten)!, ['cents_to_dollars']);
    expect(callers.length).toBeGreaterThan(0);
    const [before, after] = [fingerprints(9), fingerprints(10)];
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    expect([...after.keys()].filter((id) => after.get(id) !== before.get(id)).sort()).toEqual(callers);
    const changes = await diff(nine.invocation_id, ten.invocation_id);
    expect(changes.nodes.map((n) => [n.unique_id, n.change, n.aspects.includes('macros')])).toEqual(callers.map((id) => [id, 'semantic', true]));
    // diff lists the macro itself, as the manifests' macro_sql says, and nothing added or removed.
    const macroIds = (step: Step): string[] => Object.keys((manifestOf(step)!.macros ?? {}) as Record<string, unknown>);
    const [nineMacros, tenMacros] = [macroIds(nine), macroIds(ten)];
    expect(changes.macros.filter((m) => m.change === 'code').map((m) => m.unique_id)).toEqual(changedMacros(manifestOf(nine)!, manifestOf(ten)!).sort());
    expect(changes.macros.filter((m) => m.change === 'added').map((m) => m.unique_id)).toEqual(tenMacros.filter((id) => !nineMacros.includes(id)).sort());
    expect(changes.macros.filter((m) => m.change === 'removed').map((m) => m.unique_id)).toEqual(nineMacros.filter((id) => !tenMacros.includes(id)).sort());
    expect((await replay.cli(['diff', nine.invocation_id, ten.invocation_id])).stdout).toMatch(
      /^macros {6}1 code\n {2}code {7}macro\.attic_shop\.cents_to_dollars\n/m,
    );
  });

  it('a seed keeps its fingerprint exactly while its file checksum is unchanged (step 06 changes it)', async () => {
    const seed = 'seed.attic_shop.country_codes';
    const withManifest = replay.steps.filter((s) => manifestOf(s) !== null);
    const changedAt: number[] = [];
    for (const [i, step] of withManifest.entries()) {
      if (i === 0) continue;
      const previous = withManifest[i - 1]!;
      const fileChanged = enabledNodes(manifestOf(previous)!).get(seed)!.checksum !== enabledNodes(manifestOf(step)!).get(seed)!.checksum;
      expect(fingerprints(step.step).get(seed) !== fingerprints(previous.step).get(seed), `step ${step.step}`).toBe(fileChanged);
      if (fileChanged) changedAt.push(step.step);
    }
    expect(changedAt).toEqual([6]);
  });

  it('v_node_changes names, for each consecutive pair of manifests, the nodes that changed', async () => {
    const rows = await replay.json<{ unique_id: string; from_invocation: string; to_invocation: string; change_kind: string }[]>([
      'query',
      '--json',
      'SELECT unique_id, from_invocation, to_invocation, change_kind FROM v_node_changes',
    ]);
    const withManifest = replay.steps.filter((s) => manifestOf(s) !== null);
    for (const [i, step] of withManifest.entries()) {
      if (i === 0) continue;
      const previous = withManifest[i - 1]!;
      const listed = rows.filter((r) => r.to_invocation === step.invocation_id && !['added', 'removed'].includes(r.change_kind));
      expect(
        listed.every((r) => r.from_invocation === previous.invocation_id),
        `step ${step.step}`,
      ).toBe(true);
      expect(listed.map((r) => r.unique_id).sort(), `step ${step.step}`).toEqual(expectedChanged(manifestOf(previous)!, manifestOf(step)!).changed);
    }
    expect(rows.find((r) => r.to_invocation === idOf(2) && r.unique_id === 'model.attic_shop.customers')?.change_kind).toBe('cosmetic');
  });

  it('@main names the latest run on main, in inspect and in diff', async () => {
    const last = replay.steps.at(-1)!;
    expect((await replay.json<Inspect>(['inspect', '@main', '--json'])).invocation.invocation_id).toBe(last.invocation_id);
    const changes = await diff('@main', idOf(1));
    expect([changes.from, changes.to]).toEqual([last.invocation_id, idOf(1)]);
    expect(changes.git.range).toBe(`${replay.shaAfter.get(last.step)}..${replay.shaAfter.get(1)}`);
    const missing = await replay.cli(['inspect', '@no-such-branch', '--json']);
    expect(missing.exitCode).toBe(3);
    expect(JSON.parse(missing.stdout)).toMatchObject({ error: { code: 'not-found' } });
  });

  it('inspect --at picks the latest invocation at or before the time', async () => {
    const finishedAt = (step: Step): string => String(metadataOf((replay.artifactOf(step, 'run_results.json') ?? manifestOf(step))!).generated_at);
    const at = async (time: string): Promise<string> => (await replay.json<Inspect>(['inspect', '--at', time, '--json'])).invocation.invocation_id as string;
    const third = replay.step(3);
    expect(await at(finishedAt(third))).toBe(third.invocation_id);
    expect(await at(new Date(Date.parse(finishedAt(third)) - 1).toISOString())).toBe(idOf(2));
    expect(await at(new Date(Date.parse(finishedAt(replay.step(7))) + 60_000).toISOString())).toBe(idOf(7));
    const before = await replay.cli(['inspect', '--at', '2000-01-01T00:00:00Z']);
    expect(before.exitCode).toBe(3);
    expect(before.stderr).toMatch(/No invocation at or before 2000-01-01/);
  });
});
