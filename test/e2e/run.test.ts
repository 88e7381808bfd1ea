import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveDirOf, invocationIdOf, listArtifactRecordFiles, readCaptureRecords, sha256Of, type CaptureRecordJson } from '../helpers/archive-files.js';
import { BIN, makeProject, runCliProcess } from '../helpers/cli.js';
import { CORPUS_DIR, hasCorpus } from '../helpers/corpus.js';
import { installFakeDbt, type FakeDbt } from '../helpers/fake-dbt.js';
import { writeSyntheticTarget } from '../helpers/synthetic-artifacts.js';
import { startWatched } from '../helpers/watched-process.js';

/** What dbt's target/ holds after a passing and after a failing `dbt build`. */
interface Replays {
  passing: string;
  failing: string;
}

const REMBO = path.join(CORPUS_DIR, 'rembo-dbt-prod/target-seq');
const sources: { name: string; needsCorpus: boolean; prepare: () => Replays }[] = [
  {
    name: 'synthetic artifacts',
    needsCorpus: false,
    prepare: () => ({
      passing: writeSyntheticTarget({ invocationId: '11111111-aaaa-4bbb-8ccc-000000000001', statuses: ['success', 'pass'] }),
      failing: writeSyntheticTarget({ invocationId: '22222222-aaaa-4bbb-8ccc-000000000002', statuses: ['success', 'error', 'skipped'] }),
    }),
  },
  {
    // Without the corpus these show as skipped, not gone.
    name: 'real target/ dirs (rembo-dbt-prod)',
    needsCorpus: true,
    prepare: () => ({ passing: path.join(REMBO, '11_2025-06-11_7e907ff3'), failing: path.join(REMBO, '10_2025-06-08_503c62cc') }),
  },
];

let fake: FakeDbt;
beforeAll(async () => {
  fake = await installFakeDbt();
});
afterAll(() => fake.remove());

function fakeEnv(replay: string | undefined, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: `${fake.binDir}${path.delimiter}${process.env.PATH ?? ''}`, FAKE_DBT_DELAY_MS: '0', ...(replay ? { FAKE_DBT_REPLAY: replay } : {}), ...extra };
}

function runDbt(cwd: string, dbtArgs: string[], replay: string | undefined, extra: Record<string, string> = {}) {
  return runCliProcess(['run', '--', 'dbt', ...dbtArgs], { cwd, env: fakeEnv(replay, extra) });
}

/** The capture record `run` wrote after the command: exactly one per run. */
function postRecord(projectDir: string): CaptureRecordJson {
  const posts = readCaptureRecords(archiveDirOf(projectDir)).filter((r) => r.phase === 'post');
  expect(posts).toHaveLength(1);
  return posts[0]!;
}

function entry(record: CaptureRecordJson, artifact: string) {
  const found = record.artifacts.find((a) => a.artifact === artifact);
  expect(found, `${artifact} in the capture record`).toBeDefined();
  return found!;
}

for (const { name, needsCorpus, prepare } of sources)
  describe.skipIf(needsCorpus && !hasCorpus)(`dbtattic run -- dbt … replaying ${name}`, () => {
    let replays: Replays;
    beforeAll(() => {
      replays = prepare();
    });

    it("passes dbt's stdout through, exits 0, and files manifest and run_results under dbt's invocation", async () => {
      const project = makeProject();
      const result = await runDbt(project.dir, ['build'], replays.passing);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toMatch(/^\d\d:\d\d:\d\d {2}Running with dbt=/);
      expect(result.stdout).toContain('Completed successfully');
      const invocation = invocationIdOf(path.join(replays.passing, 'run_results.json'));
      expect(invocationIdOf(path.join(replays.passing, 'manifest.json'))).toBe(invocation);
      expect(result.stderr).toContain(`dbtattic: captured manifest, run_results of invocation ${invocation.slice(0, 8)}`);

      const record = postRecord(project.dir);
      expect(record.run).toMatchObject({ argv: ['dbt', 'build'], exit_code: 0, signal: null });
      expect(Date.parse(record.run!.ended_at)).toBeGreaterThanOrEqual(Date.parse(record.run!.started_at));
      for (const artifact of ['manifest', 'run_results']) {
        const captured = entry(record, artifact);
        expect(captured).toMatchObject({ status: 'captured', invocation_id: invocation });
        expect(captured.sha256).toBe(sha256Of(path.join(replays.passing, `${artifact}.json`)));
      }
      const records = listArtifactRecordFiles(archiveDirOf(project.dir));
      expect(records.map((r) => `${r.invocation}/${r.artifact}`).sort()).toEqual([`${invocation}/manifest`, `${invocation}/run_results`]);
    });

    it('exits 1 when a node failed, and records that exit code', async () => {
      const project = makeProject();
      const result = await runDbt(project.dir, ['build'], replays.failing);
      expect(result.exitCode).toBe(1);
      expect(result.stdout).toMatch(/Completed with \d+ errors?/);
      const record = postRecord(project.dir);
      expect(record.run?.exit_code).toBe(1);
      expect(entry(record, 'run_results').sha256).toBe(sha256Of(path.join(replays.failing, 'run_results.json')));
    });

    it("exits 2 on dbt's usage error, with dbt's stderr passed through", async () => {
      const project = makeProject();
      const result = await runDbt(project.dir, ['frobnicate'], replays.passing);
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain("Error: No such command 'frobnicate'.");
      expect(postRecord(project.dir).run).toMatchObject({ argv: ['dbt', 'frobnicate'], exit_code: 2 });
    });

    it('a run dbt ended with a non-zero exit is no last success, though all its results succeeded', async () => {
      const project = makeProject();
      writeSyntheticTarget(
        { invocationId: '44444444-aaaa-4bbb-8ccc-000000000004', command: 'build', statuses: ['success', 'pass'], generatedAt: '2020-01-02T03:04:05Z' },
        project.target,
      );
      expect((await runCliProcess(['capture'], { cwd: project.dir })).exitCode).toBe(0);
      // As when an on-run-end hook fails: every result a success, dbt exits 1.
      const hooked = await runDbt(project.dir, ['build'], replays.passing, { FAKE_DBT_EXIT: '1' });
      expect(hooked.exitCode).toBe(1);
      const state = JSON.parse((await runCliProcess(['state', '--last-success', '--json'], { cwd: project.dir })).stdout) as { invocation_id: string };
      expect(state.invocation_id).toBe('44444444-aaaa-4bbb-8ccc-000000000004');
      // The same results from a run that exited 0 are a success.
      const clean = makeProject();
      expect((await runDbt(clean.dir, ['build'], replays.passing)).exitCode).toBe(0);
      const chosen = JSON.parse((await runCliProcess(['state', '--last-success', '--json'], { cwd: clean.dir })).stdout) as { invocation_id: string };
      expect(chosen.invocation_id).toBe(invocationIdOf(path.join(replays.passing, 'run_results.json')));
    });

    it('files what an earlier command left in target/ as a pre capture, then the new invocation as post', async () => {
      const project = makeProject();
      writeSyntheticTarget({ invocationId: '33333333-aaaa-4bbb-8ccc-000000000003', command: 'run' }, project.target);
      const result = await runDbt(project.dir, ['build'], replays.passing);
      expect(result.exitCode).toBe(0);
      const records = readCaptureRecords(archiveDirOf(project.dir));
      expect(records.map((r) => r.phase)).toEqual(['pre', 'post']);
      expect(entry(records[0]!, 'manifest')).toMatchObject({ status: 'captured', invocation_id: '33333333-aaaa-4bbb-8ccc-000000000003' });
      expect(entry(records[1]!, 'manifest').invocation_id).toBe(invocationIdOf(path.join(replays.passing, 'manifest.json')));
    });
  });

describe('dbtattic run where dbt is told where its project and target/ are', () => {
  const passing = (): string => writeSyntheticTarget({ invocationId: '55555555-aaaa-4bbb-8ccc-000000000005', statuses: ['success'] });
  /** A directory holding the project in transform/, as a repository with a dbt project inside does. */
  function outer(): { dir: string; project: string } {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-outer-'));
    const project = path.join(dir, 'transform');
    mkdirSync(project);
    writeFileSync(path.join(project, 'dbt_project.yml'), 'name: shop\nversion: "1.0"\nprofile: shop\n');
    return { dir, project };
  }
  const capturedIn = (project: string, target = 'target'): string[] =>
    listArtifactRecordFiles(path.join(project, '.dbtattic', 'archive'))
      .map((r) => r.artifact)
      .sort()
      .concat(existsSync(path.join(project, target, 'run_results.json')) ? ['(written)'] : []);

  it("DBT_PROJECT_DIR and dbt's --project-dir, relative to where the user is: dbt finds its project, the run is captured", async () => {
    for (const how of ['env', 'flag'] as const) {
      const { dir, project } = outer();
      const args = how === 'flag' ? ['build', '--project-dir', 'transform'] : ['build'];
      const result = await runCliProcess(['run', '--', 'dbt', ...args], {
        cwd: dir,
        env: fakeEnv(passing(), how === 'env' ? { DBT_PROJECT_DIR: 'transform' } : {}),
      });
      expect(result.exitCode, `${how}: ${result.stderr}`).toBe(0);
      expect(capturedIn(project), how).toEqual(['manifest', 'run_results', '(written)']);
      expect(existsSync(path.join(project, 'transform')), `${how}: no transform/transform`).toBe(false);
    }
  });

  it("dbt's --target-path: the run is captured from there", async () => {
    const { project } = outer();
    const result = await runCliProcess(['run', '--', 'dbt', 'build', '--target-path', 'tgt2'], { cwd: project, env: fakeEnv(passing()) });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(capturedIn(project, 'tgt2')).toEqual(['manifest', 'run_results', '(written)']);
  });
});

describe('dbtattic run when the command cannot run', () => {
  it('exits 127 for a command that is not installed, and says so on stderr', async () => {
    const project = makeProject();
    const result = await runCliProcess(['run', '--', 'dbt-not-installed-here', 'build'], { cwd: project.dir, env: fakeEnv(undefined) });
    expect(result.exitCode).toBe(127);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('dbt-not-installed-here: command not found');
    expect(postRecord(project.dir).run).toMatchObject({ argv: ['dbt-not-installed-here', 'build'], exit_code: 127 });
  });

  it('exits 2 with a usage message when no command follows --', async () => {
    const project = makeProject();
    const result = await runCliProcess(['run'], { cwd: project.dir, env: fakeEnv(undefined) });
    expect(result.exitCode).toBe(2);
  });
});

describe('dbtattic run interrupted', () => {
  it('passes a SIGINT to it alone on to a dbt that hangs mid-run at once, captures its partial run_results and exits 130', async () => {
    const project = makeProject();
    const replay = writeSyntheticTarget({ invocationId: '44444444-aaaa-4bbb-8ccc-000000000004', statuses: ['success', 'success', 'success'] });
    // Its own session, so no terminal's Ctrl-C reaches dbt directly and dbtattic must forward ours.
    const watched = startWatched(process.execPath, [BIN, 'run', '--', 'dbt', 'build'], {
      cwd: project.dir,
      env: { HOME: process.env.HOME ?? '', NO_COLOR: '1', ...fakeEnv(replay, { FAKE_DBT_HANG: '1', FAKE_DBT_CANCEL_MS: '500' }) },
      detached: true,
    });
    try {
      await watched.waitForOutput('START model.synthetic.m0');
      watched.child.kill('SIGINT');
      const sentAt = Date.now();
      const end = await watched.ended;
      // dbt exits 2 after a Ctrl-C; the run exits as an interrupted command does.
      expect(end.code).toBe(130);
      // Passed on at once, not after a grace period: dbt's clean-up (0.5 s here) is the wait.
      expect(Date.now() - sentAt).toBeLessThan(5_000);
      expect(end.stdout).toContain('Exited because of keyboard interrupt');
    } finally {
      if (watched.child.exitCode === null && watched.child.signalCode === null) process.kill(-watched.child.pid!, 'SIGKILL');
    }
    const partial = path.join(project.target, 'run_results.json');
    expect((JSON.parse(readFileSync(partial, 'utf8')) as { results: unknown[] }).results).toEqual([]);
    const record = postRecord(project.dir);
    expect(record.run).toMatchObject({ exit_code: 130, signal: null });
    expect(entry(record, 'run_results')).toMatchObject({ status: 'captured', sha256: sha256Of(partial) });
    expect(entry(record, 'manifest').sha256).toBe(sha256Of(path.join(replay, 'manifest.json')));
  });
});

describe('dbtattic run interrupted with its process group (a CI runner cancelling, no terminal)', () => {
  it("gives dbt exactly one SIGINT: dbt is in a group of its own, so the group's does not reach it and ours does", async () => {
    const project = makeProject();
    const replay = writeSyntheticTarget({ invocationId: '77777777-aaaa-4bbb-8ccc-000000000007', statuses: ['success', 'success'] });
    const watched = startWatched(process.execPath, [BIN, 'run', '--', 'dbt', 'build'], {
      cwd: project.dir,
      env: { HOME: process.env.HOME ?? '', NO_COLOR: '1', ...fakeEnv(replay, { FAKE_DBT_HANG: '1', FAKE_DBT_CANCEL_MS: '500' }) },
      detached: true,
    });
    try {
      await watched.waitForOutput('START model.synthetic.m0');
      process.kill(-watched.child.pid!, 'SIGINT');
      const end = await watched.ended;
      expect(end.code, end.stderr).toBe(130);
      // A second SIGINT during the clean-up kills the stand-in before this line, as it does dbt.
      expect(end.stdout).toContain('Exited because of keyboard interrupt');
    } finally {
      if (watched.child.exitCode === null && watched.child.signalCode === null) process.kill(-watched.child.pid!, 'SIGKILL');
    }
    const partial = path.join(project.target, 'run_results.json');
    expect((JSON.parse(readFileSync(partial, 'utf8')) as { metadata: { invocation_id: string } }).metadata.invocation_id).toBe(
      '77777777-aaaa-4bbb-8ccc-000000000007',
    );
    expect(entry(postRecord(project.dir), 'run_results')).toMatchObject({ status: 'captured', sha256: sha256Of(partial) });
  });
});

describe("capture problems during run are warnings that never change dbt's exit code", () => {
  const passing = (): string => writeSyntheticTarget({ invocationId: '55555555-aaaa-4bbb-8ccc-000000000005' });
  const failing = (): string => writeSyntheticTarget({ invocationId: '66666666-aaaa-4bbb-8ccc-000000000006', statuses: ['error'] });

  it('warns about a corrupt manifest left in target/ before the run', async () => {
    const project = makeProject();
    writeFileSync(path.join(project.target, 'manifest.json'), '{"metadata": {"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json"');
    const result = await runDbt(project.dir, ['build'], passing());
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain(`dbtattic warning: ${path.join(project.target, 'manifest.json')}: it is not complete JSON`);
    expect(entry(postRecord(project.dir), 'manifest').status).toBe('captured');
  });

  it('warns about a corrupt manifest dbt wrote, and still captures the run results', async () => {
    const project = makeProject();
    const replay = failing();
    writeFileSync(path.join(replay, 'manifest.json'), readFileSync(path.join(replay, 'manifest.json')).subarray(0, 100));
    const result = await runDbt(project.dir, ['build'], replay);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`dbtattic warning: ${path.join(project.target, 'manifest.json')}: it is not complete JSON`);
    const record = postRecord(project.dir);
    expect(entry(record, 'manifest').status).toBe('error');
    expect(entry(record, 'run_results').status).toBe('captured');
  });

  it('warns when the archive cannot be written at all', async () => {
    const project = makeProject();
    const notADir = path.join(mkdtempSync(path.join(os.tmpdir(), 'attic-store-')), 'a-file');
    writeFileSync(notADir, 'not a directory');
    const result = await runCliProcess(['--store', notADir, 'run', '--', 'dbt', 'build'], { cwd: project.dir, env: fakeEnv(failing()) });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('Completed with 1 error');
    expect(result.stderr).toContain('dbtattic warning: post-run capture failed:');
  });
});
