import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeProject, runCli } from '../helpers/cli.js';
import { writeSyntheticTarget } from '../helpers/synthetic-artifacts.js';
import { CORPUS_DIR, hasCorpus } from '../helpers/corpus.js';

const ARTIFACT_FILES = ['manifest.json', 'run_results.json', 'sources.json', 'catalog.json', 'semantic_manifest.json', 'freshness.json'];

const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('capture --phase pre outside any dbt project', () => {
  it('is silent and exits 0, as the shell wrapper around `dbt init` needs', async () => {
    const nowhere = mkdtempSync(path.join(os.tmpdir(), 'attic-nowhere-'));
    made.push(nowhere);
    expect(await runCli(['capture', '--quiet', '--phase', 'pre'], { cwd: nowhere })).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(existsSync(path.join(nowhere, '.dbtattic'))).toBe(false);
  });

  it('still refuses a --project-dir that is not a project, and a manual capture outside one', async () => {
    const nowhere = mkdtempSync(path.join(os.tmpdir(), 'attic-nowhere-'));
    made.push(nowhere);
    expect((await runCli(['capture', '--phase', 'pre', '--project-dir', nowhere], { cwd: nowhere })).exitCode).toBe(2);
    expect((await runCli(['capture'], { cwd: nowhere })).exitCode).toBe(2);
  });
});

describe('capture --dry-run --json', () => {
  it('says `would capture` for what it would store, and writes nothing', async () => {
    const project = makeProject();
    made.push(project.dir);
    writeSyntheticTarget({ invocationId: 'd1d1d1d1-0000-4000-8000-000000000001' }, project.target);
    const result = await runCli(['capture', '--dry-run', '--json'], { cwd: project.dir });
    expect(result.exitCode).toBe(0);
    const report = JSON.parse(result.stdout) as { capture_id: string | null; dry_run: boolean; artifacts: { artifact: string; status: string }[] };
    const onDisk = ['manifest', 'run_results'].filter((a) => existsSync(path.join(project.target, `${a}.json`)));
    expect(report.dry_run).toBe(true);
    expect(report.capture_id).toBeNull();
    expect(
      report.artifacts
        .filter((a) => a.status === 'would capture')
        .map((a) => a.artifact)
        .sort(),
    ).toEqual(onDisk.sort());
    expect(report.artifacts.some((a) => a.status === 'captured')).toBe(false);
    expect(existsSync(path.join(project.dir, '.dbtattic', 'archive', 'records'))).toBe(false);
    expect(readFileSync(path.join(project.target, 'manifest.json'), 'utf8')).toContain('d1d1d1d1');
  });
});

describe('capture with a catalog URI that carries credentials', () => {
  it('is a configuration error naming the key, not a silent invalid snapshot; the artifacts are still kept, and no secret echoed', async () => {
    const project = makeProject();
    made.push(project.dir);
    writeSyntheticTarget({ invocationId: 'c4c4c4c4-0000-4000-8000-000000000001' }, project.target);
    writeFileSync(path.join(project.dir, 'dbtattic.yml'), 'catalog:\n  provider: nessie\n  uri: https://admin:hunter2@nessie.internal:19120\n');
    const result = await runCli(['capture'], { cwd: project.dir });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/catalog\.uri carries credentials/);
    expect(result.stderr + result.stdout).not.toContain('hunter2');
    expect(result.stderr).toMatch(/The artifacts were captured without a catalog snapshot/);
    expect(existsSync(path.join(project.dir, '.dbtattic', 'archive', 'records'))).toBe(true);
  });
});

describe('the target of an invocation whose artifacts do not name one', () => {
  it("is the profile's default target, or DBT_TARGET, with where it came from", async () => {
    const project = makeProject();
    made.push(project.dir);
    writeFileSync(path.join(project.dir, 'profiles.yml'), 'attic_test:\n  target: staging\n  outputs: {staging: {type: duckdb}}\n');
    const profiles = path.join(project.dir, 'profiles.yml');
    writeSyntheticTarget({ invocationId: '7a7a7a7a-0000-4000-8000-000000000001', command: 'build' }, project.target);
    expect((await runCli(['capture', '--quiet'], { cwd: project.dir })).exitCode).toBe(0);
    writeSyntheticTarget({ invocationId: '7a7a7a7a-0000-4000-8000-000000000002', command: 'build', generatedAt: '2026-01-03T00:00:00Z' }, project.target);
    expect((await runCli(['capture', '--quiet'], { cwd: project.dir, env: { DBT_TARGET: 'ci' } })).exitCode).toBe(0);
    writeSyntheticTarget(
      { invocationId: '7a7a7a7a-0000-4000-8000-000000000003', command: 'build', target: 'prod', generatedAt: '2026-01-04T00:00:00Z' },
      project.target,
    );
    expect((await runCli(['capture', '--quiet'], { cwd: project.dir, env: { DBT_TARGET: 'ci' } })).exitCode).toBe(0);
    const rows = await runCli(['query', '--json', 'select invocation_id, target, target_source from invocation order by invocation_id'], { cwd: project.dir });
    expect(JSON.parse(rows.stdout)).toEqual([
      { invocation_id: '7a7a7a7a-0000-4000-8000-000000000001', target: 'staging', target_source: profiles },
      { invocation_id: '7a7a7a7a-0000-4000-8000-000000000002', target: 'ci', target_source: 'env:DBT_TARGET' },
      { invocation_id: '7a7a7a7a-0000-4000-8000-000000000003', target: 'prod', target_source: 'run_results args' },
    ]);
  });
});

/** Issue 44 item 12: the table listed every artifact dbt did not write as `absent`. */
describe('capture prints what target/ holds', () => {
  const REMBO = path.join(CORPUS_DIR, 'rembo-dbt-prod/target-seq/11_2025-06-11_7e907ff3');
  it.skipIf(!hasCorpus)('a row per artifact in a real target/, none for those dbt did not write', async () => {
    const project = makeProject();
    made.push(project.dir);
    const result = await runCli(['capture', '--target-path', REMBO], { cwd: project.dir });
    expect(result.exitCode, result.stderr).toBe(0);
    const onDisk = readdirSync(REMBO)
      .filter((f) => ARTIFACT_FILES.includes(f))
      .map((f) => f.replace(/\.json$/, ''));
    const listed = result.stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split('\t')[0] ?? '');
    expect(listed.filter((a) => !a.startsWith('sql') && !a.startsWith('log')).sort()).toEqual(onDisk.sort());
    expect(result.stdout).not.toContain('absent');
  });

  it('says there is nothing to capture in an empty target/, and exits 0', async () => {
    const project = makeProject();
    made.push(project.dir);
    const result = await runCli(['capture'], { cwd: project.dir });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^nothing to capture: .*target holds none of dbt's artifacts \(manifest\.json, run_results\.json/);
  });
});
