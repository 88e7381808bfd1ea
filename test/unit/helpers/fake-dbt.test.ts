import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CORPUS_DIR, hasCorpus } from '../../helpers/corpus.js';
import { installFakeDbt, type FakeDbt } from '../../helpers/fake-dbt.js';
import { startWatched } from '../../helpers/watched-process.js';

/** Real target/ dirs: a `test` run with 18 passes, and one with a failing test, sources and a catalog. */
const PASSING = path.join(CORPUS_DIR, 'brooklyn-dbt-artifacts/integration-seq-snowflake-1.0/05_test');
const FAILING = path.join(CORPUS_DIR, 'aec-hannah-bq-1.0.3/target-seq/01_2022-03-01_18f38be0');
const WITH_SEMANTIC = path.join(CORPUS_DIR, 'crypto-analytics-pg/target-seq');

let fake: FakeDbt;
let project: string;

beforeAll(async () => {
  fake = await installFakeDbt();
});
afterAll(() => fake.remove());
beforeEach(async () => {
  project = await mkdtemp(path.join(tmpdir(), 'dbtattic-fake-project-'));
  await writeFile(path.join(project, 'dbt_project.yml'), 'name: demo\n');
  return () => rm(project, { recursive: true, force: true });
});

function runDbt(args: string[], env: NodeJS.ProcessEnv = {}) {
  return startWatched('dbt', args, { cwd: project, env: fake.env({ FAKE_DBT_DELAY_MS: '0', ...env }) });
}

const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('fake dbt without artifacts', () => {
  it('rejects an unknown command on stderr with exit 2, as click does', async () => {
    const end = await runDbt(['frobnicate']).ended;
    expect(end.code).toBe(2);
    expect(end.stderr).toContain("No such command 'frobnicate'");
  });

  it('rejects `docs` without a known subcommand', async () => {
    expect((await runDbt(['docs', 'serve']).ended).code).toBe(2);
  });

  it('fails with exit 2 outside a dbt project, writing nothing', async () => {
    await rm(path.join(project, 'dbt_project.yml'));
    const end = await runDbt(['build']).ended;
    expect(end.code).toBe(2);
    expect(end.stdout).toContain('No dbt_project.yml found');
    expect(existsSync(path.join(project, 'target'))).toBe(false);
  });

  it('takes its exit code from FAKE_DBT_EXIT when set', async () => {
    expect((await runDbt(['run', '-q'], { FAKE_DBT_EXIT: '1' }).ended).code).toBe(1);
    expect((await runDbt(['run', '-q']).ended).code).toBe(0);
  });
});

describe.skipIf(!hasCorpus)('fake dbt replaying real target/ dirs', () => {
  it('writes byte-identical copies of what `build` writes, and exits 1 on a failed result', async () => {
    const end = await runDbt(['build', '-q', '--select', 'a', 'b'], { FAKE_DBT_REPLAY: FAILING }).ended;
    expect(end.code).toBe(1);
    for (const name of ['manifest.json', 'run_results.json']) {
      expect(sha256(path.join(project, 'target', name))).toBe(sha256(path.join(FAILING, name)));
    }
    expect(existsSync(path.join(project, 'target', 'sources.json'))).toBe(false);
    expect(existsSync(path.join(project, 'target', 'catalog.json'))).toBe(false);
  });

  it('writes catalog.json for `docs generate` and sources.json for `source freshness`', async () => {
    await runDbt(['docs', 'generate', '-q'], { FAKE_DBT_REPLAY: FAILING }).ended;
    expect(sha256(path.join(project, 'target', 'catalog.json'))).toBe(sha256(path.join(FAILING, 'catalog.json')));
    const end = await runDbt(['source', 'freshness', '-q', '--target-path', 'fresh'], { FAKE_DBT_REPLAY: FAILING }).ended;
    expect(end.code).toBe(1);
    expect(sha256(path.join(project, 'fresh', 'sources.json'))).toBe(sha256(path.join(FAILING, 'sources.json')));
  });

  it('writes semantic_manifest.json beside the manifest when the replayed dir has one', async () => {
    const dir = path.join(WITH_SEMANTIC, readdirFirstWith(WITH_SEMANTIC, 'semantic_manifest.json'));
    expect((await runDbt(['parse', '-q'], { FAKE_DBT_REPLAY: dir }).ended).code).toBe(0);
    const written = path.join(project, 'target', 'semantic_manifest.json');
    expect(sha256(written)).toBe(sha256(path.join(dir, 'semantic_manifest.json')));
    expect(existsSync(path.join(project, 'target', 'run_results.json'))).toBe(false);
  });

  it('exits 0 when every result passed', async () => {
    expect((await runDbt(['test', '-q'], { FAKE_DBT_REPLAY: PASSING }).ended).code).toBe(0);
  });

  it('honours --target-path over DBT_TARGET_PATH over dbt_project.yml', async () => {
    await writeFile(path.join(project, 'dbt_project.yml'), "name: demo\ntarget-path: 'from-yml'  # ours\n");
    await runDbt(['parse', '-q'], { FAKE_DBT_REPLAY: PASSING }).ended;
    await runDbt(['parse', '-q'], { FAKE_DBT_REPLAY: PASSING, DBT_TARGET_PATH: 'from-env' }).ended;
    await runDbt(['parse', '-q', '--target-path=from-flag'], { FAKE_DBT_REPLAY: PASSING, DBT_TARGET_PATH: 'from-env' }).ended;
    for (const dir of ['from-yml', 'from-env', 'from-flag']) {
      expect(existsSync(path.join(project, dir, 'manifest.json'))).toBe(true);
    }
  });

  it('writes the manifest early and leaves the previous run_results.json until the end', async () => {
    const target = path.join(project, 'target');
    await mkdir(target);
    await writeFile(path.join(target, 'run_results.json'), '{"previous": true}');
    const dbt = runDbt(['test'], { FAKE_DBT_REPLAY: PASSING, FAKE_DBT_HANG: '1' });
    await dbt.waitForOutput('1 of 18 START');
    expect(sha256(path.join(target, 'manifest.json'))).toBe(sha256(path.join(PASSING, 'manifest.json')));
    expect(readFileSync(path.join(target, 'run_results.json'), 'utf8')).toBe('{"previous": true}');
    dbt.child.kill('SIGTERM');
    const end = await dbt.ended;
    expect(end.signal).toBe('SIGTERM');
    expect(readFileSync(path.join(target, 'run_results.json'), 'utf8')).toBe('{"previous": true}');
  });

  it('on SIGINT writes the results finished so far and exits 2, as dbt 1.x does on KeyboardInterrupt', async () => {
    const dbt = runDbt(['test'], { FAKE_DBT_REPLAY: PASSING, FAKE_DBT_DELAY_MS: '300' });
    await dbt.waitForOutput('1 of 18 PASS');
    dbt.child.kill('SIGINT');
    const end = await dbt.ended;
    expect(end.code).toBe(2);
    expect(end.stdout).toContain('Exited because of keyboard interrupt');
    const partial = JSON.parse(readFileSync(path.join(project, 'target', 'run_results.json'), 'utf8'));
    const replayed = JSON.parse(readFileSync(path.join(PASSING, 'run_results.json'), 'utf8'));
    const passLines = end.stdout.match(/\d+ of 18 PASS/g) ?? [];
    expect(partial.results).toEqual(replayed.results.slice(0, passLines.length));
    expect(partial.results.length).toBeGreaterThanOrEqual(1);
    expect(partial.metadata).toEqual(replayed.metadata);
  });
});

function readdirFirstWith(dir: string, name: string): string {
  const found = readdirSync(dir)
    .sort()
    .find((sub) => existsSync(path.join(dir, sub, name)));
  if (found === undefined) throw new Error(`no ${name} under ${dir}`);
  return found;
}
