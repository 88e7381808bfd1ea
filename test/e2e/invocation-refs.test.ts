import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '../../src/archive/index.js';
import { captureTarget } from '../../src/capture/index.js';
import { ARTIFACT_TYPES } from '../../src/vocab/index.js';
import { makeProject, runCli, type CliResult } from '../helpers/cli.js';
import { writeSyntheticTarget, type SyntheticInvocation } from '../helpers/synthetic-artifacts.js';

/** How inspect and diff name invocations: --at in every ISO-8601 form, @branch, and what is refused. */
const uuid = (n: number): string => `7ef5a000-0000-4000-8000-00000000000${n}`;
const RUNS: SyntheticInvocation[] = [
  { invocationId: uuid(1), command: 'build', statuses: ['success', 'success'], generatedAt: '2026-01-01T10:00:00.000000Z' },
  { invocationId: uuid(2), command: 'build', statuses: ['success', 'success', 'success'], generatedAt: '2026-01-02T10:00:00.000000Z' },
  { invocationId: uuid(3), command: 'build', statuses: ['success', 'error'], generatedAt: '2026-01-03T10:00:00.000000Z' },
];
const project = makeProject();
const cli = (...args: string[]): Promise<CliResult> => runCli(args, { cwd: project.dir });
const inspectedAt = async (time: string): Promise<string> => {
  const result = await cli('inspect', '--at', time, '--json');
  expect(result.stderr).toBe('');
  return (JSON.parse(result.stdout) as { invocation: { invocation_id: string } }).invocation.invocation_id;
};

/** A catalog of no relations: all `state --artifacts` needs is an archived catalog.json. */
const catalogOf = (run: SyntheticInvocation): string =>
  JSON.stringify({
    metadata: {
      dbt_schema_version: 'https://schemas.getdbt.com/dbt/catalog/v1.json',
      dbt_version: '1.9.4',
      generated_at: run.generatedAt,
      invocation_id: run.invocationId,
      env: {},
    },
    nodes: {},
    sources: {},
    errors: null,
  });

beforeAll(async () => {
  const backend = await openArchive(path.join(project.dir, '.dbtattic', 'archive'), { create: true });
  for (const [i, run] of RUNS.entries()) {
    const dir = path.join(project.dir, 'runs', String(i));
    mkdirSync(dir, { recursive: true });
    writeSyntheticTarget(run, dir);
    if (i === 2) writeFileSync(path.join(dir, 'catalog.json'), catalogOf(run));
    await captureTarget(backend, {
      targetDir: dir,
      artifacts: ARTIFACT_TYPES,
      phase: 'manual',
      toolVersion: 'test',
      branch: 'main',
      now: new Date(Date.parse(run.generatedAt!) + 60_000),
    });
  }
});
afterAll(() => rmSync(project.dir, { recursive: true, force: true }));

describe('inspect --at', () => {
  it.each([
    ['2026-01-02T12:00Z', 2],
    ['2026-01-02T12:00:00.5Z', 2],
    ['2026-01-02T14:00+02:00', 2],
    ['2026-01-02T11:00+02:00', 1],
    ['2026-01-02T09:00-01:30', 2],
    ['20260102T1200Z', 2],
    ['2026-01-02 12:00', 2],
    ['2026-01-02', 2],
    ['2026-002', 2],
    ['2026-W01-5', 2],
    ['2026-01-01', 1],
  ])('%s names invocation %i', async (time, n) => {
    expect(await inspectedAt(time)).toBe(uuid(n));
  });

  it('refuses what is not a time with a usage error, not an internal one', async () => {
    const result = await cli('inspect', '--at', 'last tuesday');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/'last tuesday' is not a time: use ISO 8601/);
  });

  it('refuses an invocation and --at together, instead of ignoring one', async () => {
    const result = await cli('inspect', uuid(1), '--at', '2026-01-03');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/not both/);
  });
});

describe('@branch after branch create', () => {
  it('names the run the branch starts at, in inspect and diff', async () => {
    const created = await cli('branch', 'create', 'feature', '--from', uuid(1));
    expect(created.stderr).toMatch(/^created branch feature/);
    expect(created.exitCode).toBe(0);
    const inspect = await cli('inspect', '@feature', '--json');
    expect(inspect.stderr).toBe('');
    expect((JSON.parse(inspect.stdout) as { invocation: { invocation_id: string } }).invocation.invocation_id).toBe(uuid(1));
    const diff = await cli('diff', '@main', '@feature', '--json');
    expect(diff.exitCode).toBe(0);
    const changes = JSON.parse(diff.stdout) as { from: string; to: string; nodes: { unique_id: string; change: string }[] };
    expect([changes.from, changes.to]).toEqual([uuid(3), uuid(1)]);
    // Run 3's manifest has models m0 and m1, run 1's the same two: nothing added or removed.
    expect(changes.nodes.filter((n) => n.change === 'added' || n.change === 'removed')).toEqual([]);
  });

  it('still says so for a branch that does not exist', async () => {
    const result = await cli('inspect', '@no-such-branch');
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toMatch(/No invocation on branch 'no-such-branch'/);
  });
});

describe('state', () => {
  it('names an ambiguous prefix in words that read aloud', async () => {
    const result = await cli('state', '--invocation', '7ef5a000');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("'7ef5a000' matches 3 invocations with a manifest: ");
  });

  it('refuses --out naming an existing file as a usage error, and leaves the file alone', async () => {
    const file = path.join(project.dir, 'not-a-dir');
    writeFileSync(file, 'keep me');
    const result = await cli('state', '--invocation', uuid(2), '--out', 'not-a-dir');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/not-a-dir is a file, not a directory/);
    expect(readFileSync(file, 'utf8')).toBe('keep me');
  });
});

describe('branch delete', () => {
  it("removes the branch's name and base, refuses an unknown name, and keeps the runs", async () => {
    expect((await cli('branch', 'create', 'short-lived', '--from', uuid(2))).exitCode).toBe(0);
    const deleted = await cli('branch', 'delete', 'short-lived', '--json');
    expect(deleted.exitCode).toBe(0);
    expect(JSON.parse(deleted.stdout)).toMatchObject({ name: 'short-lived', base: { invocation_id: uuid(2) } });
    const names = (JSON.parse((await cli('branch', 'list', '--json')).stdout) as { name: string }[]).map((b) => b.name);
    expect(names).not.toContain('short-lived');
    expect(names).toContain('main');
    expect((await cli('inspect', '@short-lived')).stderr).toMatch(/No invocation on branch 'short-lived'/);
    const again = await cli('branch', 'delete', 'short-lived');
    expect(again.exitCode).toBe(3);
    expect(again.stderr).toMatch(/No branch 'short-lived'/);
    expect((await cli('inspect', uuid(2), '--json')).exitCode).toBe(0);
  });
});

describe('state --artifacts', () => {
  it('writes the archived artifacts asked for, byte for byte, and only those', async () => {
    const out = path.join(project.dir, 'restored');
    const result = await cli('state', '--invocation', uuid(3), '--artifacts', 'catalog.json,manifest', '--out', out, '--json');
    expect(result.exitCode).toBe(0);
    expect((JSON.parse(result.stdout) as { files: string[] }).files.sort()).toEqual(['catalog.json', 'manifest.json']);
    expect(
      readdirSync(out)
        .filter((name) => name.endsWith('.json'))
        .sort(),
    ).toEqual(['catalog.json', 'manifest.json']);
    for (const name of ['catalog.json', 'manifest.json'])
      expect(readFileSync(path.join(out, name))).toEqual(readFileSync(path.join(project.dir, 'runs', '2', name)));
  });

  it('says which asked-for artifact the invocation lacks, and refuses names that are no artifact', async () => {
    const lacking = await cli('state', '--invocation', uuid(1), '--artifacts', 'catalog', '--out', path.join(project.dir, 'lacking'));
    expect(lacking.exitCode).toBe(0);
    expect(lacking.stderr).toContain(`invocation ${uuid(1)} has no catalog.json in the archive`);
    const bogus = await cli('state', '--artifacts', 'catalog,profiles');
    expect(bogus.exitCode).toBe(2);
    expect(bogus.stderr).toMatch(/--artifacts takes .*\(not: profiles\)/);
  });
});

describe('command names', () => {
  it('are the ones dbt users type, catalog-only runs included, and --command takes either spelling', async () => {
    const docs: SyntheticInvocation = { invocationId: uuid(4), generatedAt: '2025-12-31T10:00:00.000000Z' };
    const dir = path.join(project.dir, 'runs', 'docs');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'catalog.json'), catalogOf(docs));
    const backend = await openArchive(path.join(project.dir, '.dbtattic', 'archive'), { create: false });
    await captureTarget(backend, {
      targetDir: dir,
      artifacts: ARTIFACT_TYPES,
      phase: 'manual',
      toolVersion: 'test',
      branch: 'main',
      now: new Date('2025-12-31T10:01:00Z'),
    });
    const listed = async (command: string): Promise<{ invocation_id: string; command: string }[]> =>
      JSON.parse((await cli('history', '--json', '--command', command)).stdout) as { invocation_id: string; command: string }[];
    expect(await listed('docs generate')).toEqual([expect.objectContaining({ invocation_id: uuid(4), command: 'docs generate' })]);
    expect((await listed('generate')).map((row) => row.invocation_id)).toEqual([uuid(4)]);
  });
});
