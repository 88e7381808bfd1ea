import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeProject, putTarget, runCli, runCliProcess } from '../helpers/cli.js';
import { installFakeDbt, type FakeDbt } from '../helpers/fake-dbt.js';
import { writeSyntheticTarget } from '../helpers/synthetic-artifacts.js';

/**
 * `export: {to: …}` in dbtattic.yml: the store's catch-up after a capture exports what it took
 * in (cli/after-capture.ts). `capture` does it before it returns; `run` leaves it, with the
 * catch-up, to its detached `sync --after-capture`. An export that fails is a warning, never a
 * failed capture.
 */
const FIRST = '4c0ffee0-aaaa-4bbb-8ccc-000000000001';
const SECOND = '4c0ffee0-aaaa-4bbb-8ccc-000000000002';
const BY_RUN = '4c0ffee0-aaaa-4bbb-8ccc-000000000003';

/** The invocations the dataset at `dir` holds a run_result file of. */
function exportedInvocations(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(path.join(dir, 'run_result'), { recursive: true, encoding: 'utf8' });
  } catch {
    return [];
  }
  return names.flatMap((n) => /([0-9a-f-]{36})-[0-9a-f]{16}\.parquet$/.exec(n)?.[1] ?? []).sort();
}

function projectExportingTo(to: string): { dir: string; target: string } {
  const project = makeProject();
  writeFileSync(path.join(project.dir, 'dbtattic.yml'), `export:\n  to: ${to}\n`);
  return project;
}

const synthetic = (invocationId: string) => {
  const dir = writeSyntheticTarget({ invocationId, statuses: ['success', 'pass'] });
  return { 'manifest.json': path.join(dir, 'manifest.json'), 'run_results.json': path.join(dir, 'run_results.json') };
};

describe('export after capture', () => {
  let fake: FakeDbt;
  beforeAll(async () => {
    fake = await installFakeDbt();
  });
  afterAll(() => fake.remove());

  it('capture exports each new invocation before it returns, and only what is new', async () => {
    const project = projectExportingTo('history');
    const dataset = path.join(project.dir, 'history');
    putTarget(project.target, synthetic(FIRST));
    const first = await runCli(['capture'], { cwd: project.dir });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/exported to .*history: \d+ file\(s\) written, 0 deleted/);
    expect(exportedInvocations(dataset)).toEqual([FIRST]);

    putTarget(project.target, synthetic(SECOND));
    const second = await runCli(['capture'], { cwd: project.dir });
    expect(second.exitCode, second.stderr).toBe(0);
    expect(exportedInvocations(dataset)).toEqual([FIRST, SECOND]);
    const again = await runCli(['export', '--json'], { cwd: project.dir });
    expect(JSON.parse(again.stdout)).toMatchObject({ written: 0, deleted: 0 });
  });

  it('a failed export is a warning: the capture succeeds and is in the store', async () => {
    const project = projectExportingTo('not-a-dir');
    writeFileSync(path.join(project.dir, 'not-a-dir'), 'a file where the dataset should be\n');
    putTarget(project.target, synthetic(FIRST));
    const result = await runCli(['capture'], { cwd: project.dir });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/dbtattic warning: the export to .*not-a-dir failed \(.+\); the capture is safe in the archive\. Run dbtattic export\./);
    const history = await runCli(['history', '--json'], { cwd: project.dir });
    expect((JSON.parse(history.stdout) as { invocation_id: string }[]).map((r) => r.invocation_id)).toEqual([FIRST]);
  });

  it('run leaves it to its detached catch-up, which exports the run', async () => {
    const project = projectExportingTo('history');
    const replay = writeSyntheticTarget({ invocationId: BY_RUN, statuses: ['success', 'error'] });
    const env = { PATH: `${fake.binDir}${path.delimiter}${process.env.PATH ?? ''}`, FAKE_DBT_DELAY_MS: '0', FAKE_DBT_REPLAY: replay };
    const result = await runCliProcess(['run', '--', 'dbt', 'build'], { cwd: project.dir, env });
    expect(result.exitCode, result.stderr).toBe(1);
    const deadline = Date.now() + 30_000;
    while (exportedInvocations(path.join(project.dir, 'history')).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(exportedInvocations(path.join(project.dir, 'history'))).toEqual([BY_RUN]);
  }, 60_000);
});
