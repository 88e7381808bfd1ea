import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { makeProject, runCli, runCliProcess, type CliResult } from '../helpers/cli.js';
import { syntheticManifest, syntheticRunResults } from '../helpers/synthetic-artifacts.js';
import { archiveDirOf, listArchiveFiles } from '../helpers/archive-files.js';

/** What a capture leaves for good: not the locks it takes nor the temp files it sweeps. */
const durable = (file: string): boolean => !file.startsWith('locks/') && !file.includes('.tmp');

/**
 * Hostile files in target/ (issue 9): each is left out with a reason (exit 1), the artifacts
 * beside it are captured, and every reading command keeps working afterwards.
 */
const GOOD = '11111111-2222-4333-8444-555555555555';

function project(): { dir: string; target: string } {
  const made = makeProject();
  onTestFinished(() => rmSync(made.dir, { recursive: true, force: true }));
  writeFileSync(path.join(made.target, 'run_results.json'), syntheticRunResults({ invocationId: GOOD }));
  return made;
}

interface Entry {
  artifact: string;
  status: string;
  invocation_id: string | null;
  error?: string;
}

async function capture(dir: string): Promise<{ result: CliResult; entries: Map<string, Entry> }> {
  const result = await runCli(['capture', '--json'], { cwd: dir });
  const entries = new Map((JSON.parse(result.stdout) as { artifacts: Entry[] }).artifacts.map((a) => [a.artifact, a]));
  return { result, entries };
}

/** The rest of the history still reads: the good run results are there, the archive verifies. */
async function expectHistoryIntact(dir: string): Promise<void> {
  const history = await runCli(['history', '--json'], { cwd: dir });
  expect(history.exitCode, history.stderr).toBe(0);
  expect(history.stdout).toContain(GOOD);
  for (const args of [['info'], ['verify']]) {
    const result = await runCli(args, { cwd: dir });
    expect(result.exitCode, `${args.join(' ')}: ${result.stderr}`).toBe(0);
  }
}

/** A manifest whose metadata.invocation_id is `id`, written as raw text so any id fits. */
function manifestWithId(id: string): string {
  const doc = JSON.parse(syntheticManifest({ invocationId: 'x' })) as { metadata: Record<string, unknown> };
  doc.metadata.invocation_id = id;
  return JSON.stringify(doc);
}

describe('invocation ids that cannot name an invocation', () => {
  const cases: [string, string, RegExp][] = [
    ['empty', '', /invocation_id is empty/],
    ['blank', '   ', /invocation_id is empty/],
    ['10,000 characters', 'a'.repeat(10_000), /10000 characters long/],
    ['over a file name once encoded', '/'.repeat(100), /100 characters long \(300 once encoded/],
  ];
  it.each(cases)('%s: the manifest is refused with the reason, the run results are captured', async (_label, id, reason) => {
    const { dir, target } = project();
    writeFileSync(path.join(target, 'manifest.json'), manifestWithId(id));
    const { result, entries } = await capture(dir);
    expect(result.exitCode).toBe(1);
    expect(entries.get('manifest')).toMatchObject({ status: 'error', error: expect.stringMatching(reason) });
    expect(entries.get('run_results')).toMatchObject({ status: 'captured', invocation_id: GOOD });
    await expectHistoryIntact(dir);
    // The pre-capture before the next dbt command is not aborted either.
    expect((await runCli(['capture', '--quiet', '--phase', 'pre'], { cwd: dir })).exitCode).toBe(1);
  });
});

describe('nesting thousands of levels deep', () => {
  const deep = (levels: number): string => `${'['.repeat(levels)}1${']'.repeat(levels)}`;
  const withDeepConfig = (levels: number): string =>
    syntheticManifest({ invocationId: 'dddddddd-2222-4333-8444-555555555555' }).replace(
      '"materialized": "view"',
      `"materialized": "view", "deep": ${deep(levels)}`,
    );

  it('is refused at capture with a reason, and the rest reads', async () => {
    const { dir, target } = project();
    writeFileSync(path.join(target, 'manifest.json'), withDeepConfig(5_000));
    const { result, entries } = await capture(dir);
    expect(result.exitCode).toBe(1);
    expect(entries.get('manifest')).toMatchObject({ status: 'error', error: expect.stringMatching(/nested more than \d+ levels deep/) });
    await expectHistoryIntact(dir);
  });
});

describe('a string larger than the store writer can hold', () => {
  it('leaves that artifact out of the store with a reason naming DBTATTIC_STORE_MEMORY_LIMIT; the rest is stored', async () => {
    const { dir, target } = project();
    // 32 MB: with 8 MB the refresh of one run's derived tables does not fit, and 16 MB was not
    // always enough beside a test suite on two cores.
    // Read once when the process starts: each command is a process of its own here.
    const env = { DBTATTIC_STORE_MEMORY_LIMIT: '32MB' };
    const huge = `select 1 -- ${'x'.repeat(96 * 1024 * 1024)}`;
    writeFileSync(path.join(target, 'manifest.json'), syntheticManifest({ invocationId: GOOD }).replace('"select 0 as id"', JSON.stringify(huge)));
    const captured = await runCliProcess(['capture', '--quiet'], { cwd: dir, env });
    expect(captured.exitCode, captured.stderr).toBe(0);
    const history = await runCliProcess(['history', '--json'], { cwd: dir, env });
    expect(history.exitCode, history.stderr).toBe(0);
    expect(history.stdout).toContain(GOOD);
    const problems = await runCliProcess(['query', 'select artifact_type, message from ingest_problem', '--json'], { cwd: dir, env });
    expect(JSON.parse(problems.stdout)).toEqual([{ artifact_type: 'manifest', message: expect.stringContaining('DBTATTIC_STORE_MEMORY_LIMIT=32MB') }]);
    const results = await runCliProcess(
      [
        'query',
        'select count(*) as n, (select count(*) from v_run_history) as matched, (select count(*) from run_result_pending) as pending from run_result',
        '--json',
      ],
      { cwd: dir, env },
    );
    expect(JSON.parse(results.stdout)).toEqual([{ n: 1, matched: 1, pending: 0 }]);
    expect((await runCliProcess(['verify'], { cwd: dir })).exitCode).toBe(0);
  });
});

describe('files in target/ that are not regular files', () => {
  it('a FIFO named manifest.json is refused without blocking', async () => {
    const { dir, target } = project();
    execFileSync('mkfifo', [path.join(target, 'manifest.json')]);
    const { result, entries } = await capture(dir);
    expect(result.exitCode).toBe(1);
    expect(entries.get('manifest')).toMatchObject({ status: 'error', error: 'it is a FIFO, not a regular file' });
    expect(entries.get('run_results')).toMatchObject({ status: 'captured' });
    await expectHistoryIntact(dir);
  });

  it('a symlink to /dev/zero is refused without reading it', async () => {
    const { dir, target } = project();
    symlinkSync('/dev/zero', path.join(target, 'manifest.json'));
    const { result, entries } = await capture(dir);
    expect(result.exitCode).toBe(1);
    expect(entries.get('manifest')).toMatchObject({ status: 'error', error: 'it is a device, not a regular file' });
    await expectHistoryIntact(dir);
  });

  it('a symlink to a regular artifact is read', async () => {
    const { dir, target } = project();
    const elsewhere = path.join(dir, 'manifest-elsewhere.json');
    writeFileSync(elsewhere, syntheticManifest({ invocationId: GOOD }));
    symlinkSync(elsewhere, path.join(target, 'manifest.json'));
    const { result, entries } = await capture(dir);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(entries.get('manifest')).toMatchObject({ status: 'captured', invocation_id: GOOD });
  });
});

describe('smaller cases', () => {
  it('a UTF-8 byte order mark is accepted, as dbt accepts it, and the exact bytes are archived', async () => {
    const { dir, target } = project();
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(syntheticManifest({ invocationId: GOOD }))]);
    writeFileSync(path.join(target, 'manifest.json'), bytes);
    const { result, entries } = await capture(dir);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(entries.get('manifest')).toMatchObject({ status: 'captured', invocation_id: GOOD });
    const nodes = await runCli(['query', 'select unique_id from node_invocation', '--json'], { cwd: dir });
    expect(nodes.exitCode, nodes.stderr).toBe(0);
    expect(nodes.stdout).toContain('model.synthetic.m0');
    const out = path.join(dir, 'state-out');
    expect((await runCli(['state', '--invocation', GOOD.slice(0, 8), '--out', out], { cwd: dir })).exitCode).toBe(0);
    expect(readFileSync(path.join(out, 'manifest.json')).equals(bytes)).toBe(true);
  });

  it('a semantic manifest beside an unreadable manifest is left out, not filed under a content id', async () => {
    const { dir, target } = project();
    writeFileSync(path.join(target, 'manifest.json'), '{"metadata": {"invocation_id": "trunc');
    writeFileSync(path.join(target, 'semantic_manifest.json'), JSON.stringify({ semantic_models: [], metrics: [], project_configuration: {} }));
    const { result, entries } = await capture(dir);
    expect(result.exitCode).toBe(1);
    expect(entries.get('semantic_manifest')).toMatchObject({
      status: 'error',
      invocation_id: null,
      error: expect.stringMatching(/manifest\.json beside it cannot be read/),
    });
    await expectHistoryIntact(dir);
  });

  it('a manifest cut after its header leaves the archive as it was, and the semantic manifest beside it out', async () => {
    const { dir, target } = project();
    expect((await capture(dir)).result.exitCode).toBe(0);
    const before = listArchiveFiles(archiveDirOf(dir)).filter(durable);
    const whole = syntheticManifest({ invocationId: '99999999-2222-4333-8444-555555555555', padNodes: 50 });
    writeFileSync(path.join(target, 'manifest.json'), whole.slice(0, whole.length / 2));
    writeFileSync(path.join(target, 'semantic_manifest.json'), JSON.stringify({ semantic_models: [], metrics: [], project_configuration: {} }));
    for (const phase of ['manual', 'pre']) {
      const result = await runCli(['capture', '--json', '--phase', phase], { cwd: dir });
      const entries = new Map((JSON.parse(result.stdout) as { artifacts: Entry[] }).artifacts.map((a) => [a.artifact, a]));
      expect(result.exitCode, phase).toBe(1);
      expect(entries.get('manifest')).toMatchObject({ status: 'error', error: expect.stringMatching(/not complete JSON/) });
      expect(entries.get('semantic_manifest')).toMatchObject({
        status: 'error',
        invocation_id: null,
        error: expect.stringMatching(/manifest\.json beside it cannot be read/),
      });
      // No journal entry naming a record never written, no capture record, no branch moved.
      expect(listArchiveFiles(archiveDirOf(dir)).filter(durable), phase).toEqual(before);
    }
    await expectHistoryIntact(dir);
  });

  it('a semantic manifest alone is filed under its content, says so, and moves no branch head onto it', async () => {
    const { dir, target } = project();
    expect((await runCli(['capture', '--branch', 'main'], { cwd: dir })).exitCode).toBe(0);
    writeFileSync(path.join(target, 'semantic_manifest.json'), JSON.stringify({ semantic_models: [], metrics: [], project_configuration: {} }));
    const result = await runCli(['capture', '--branch', 'main'], { cwd: dir });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain('semantic_manifest.json carries no invocation id and no manifest.json is beside it');
    expect(result.stderr).not.toContain('before dbt 0.19');
    const branches = JSON.parse((await runCli(['branch', 'list', '--json'], { cwd: dir })).stdout) as { head_invocation_id: string | null }[];
    expect(branches.map((b) => b.head_invocation_id)).toEqual([GOOD]);
  });

  it("duckdb_extensions() is refused for what it is: a read of DuckDB's extension directory", async () => {
    const { dir } = project();
    expect((await capture(dir)).result.exitCode).toBe(0);
    const result = await runCli(['query', 'select * from duckdb_extensions()'], { cwd: dir });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("duckdb_extensions() reads DuckDB's extension directory");
    expect(result.stderr).toContain('json, parquet, icu');
  });

  it('a target/ that is a file is said to be one, and nothing claims the other artifacts were captured', async () => {
    const { dir, target } = project();
    rmSync(target, { recursive: true });
    writeFileSync(target, 'not a directory');
    const result = await runCli(['capture'], { cwd: dir });
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toContain(`${target} is not a directory`);
    expect(result.stderr).not.toContain('the other artifacts were captured');
  });
});

describe('control characters in artifacts', () => {
  it('reach human output escaped, never as terminal commands', async () => {
    const { dir, target } = project();
    const hostile = 'prod\u001b]0;owned\u0007\u001b[2J';
    const results = JSON.parse(syntheticRunResults({ invocationId: GOOD, target: hostile, statuses: ['error'] })) as { results: { message: string }[] };
    results.results[0]!.message = 'failed\u001b[2J\u009b1;1H\r';
    writeFileSync(path.join(target, 'run_results.json'), JSON.stringify(results));
    expect((await capture(dir)).result.exitCode).toBe(0);
    for (const args of [['history'], ['inspect', GOOD.slice(0, 8)], ['query', 'select message from run_result']]) {
      const result = await runCli(args, { cwd: dir });
      expect(result.exitCode, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stdout, args.join(' ')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    }
    const history = await runCli(['history'], { cwd: dir });
    expect(history.stdout).toContain('prod\\u001b]0;owned\\u0007\\u001b[2J');
  });
});
