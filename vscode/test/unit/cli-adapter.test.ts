import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, makeProject, runCli } from '../../../test/helpers/cli.js';
import { writeSyntheticTarget } from '../../../test/helpers/synthetic-artifacts.js';
import { startWatched } from '../../../test/helpers/watched-process.js';
import { AtticClient } from '../../src/cli/attic-client.js';
import { serialCliRunner } from '../../src/cli/run-cli.js';

/**
 * The extension's CLI adapter against the real, built dbtattic: each way the CLI can fail
 * becomes the problem a view shows, and answers come through as the CLI's JSON.
 */
const scratch = mkdtempSync(path.join(os.tmpdir(), 'attic-vscode-adapter-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const clientIn = (cwd: string, executable = BIN): AtticClient => new AtticClient(serialCliRunner({ executable, cwd }), executable);

describe('problems a view shows instead of its items', () => {
  it('a CLI that is not there names what was looked for and the setting', async () => {
    const missing = path.join(scratch, 'nowhere', 'dbtattic');
    const answer = await clientIn(scratch, missing).history(5);
    expect(answer).toEqual({ ok: false, problem: { kind: 'missing-cli', message: expect.stringContaining(`"${missing}"`) } });
    expect(!answer.ok && answer.problem.message).toContain('dbtattic.cliPath');
  });

  it('a file that cannot be executed is no CLI either', async () => {
    const notExecutable = path.join(scratch, 'dbtattic.txt');
    writeFileSync(notExecutable, 'not a program');
    chmodSync(notExecutable, 0o644);
    const answer = await clientIn(scratch, notExecutable).history(5);
    expect(!answer.ok && answer.problem.kind).toBe('missing-cli');
  });

  it('outside a dbt project: no project (the CLI exits 2)', async () => {
    const answer = await clientIn(scratch).history(5);
    expect(!answer.ok && answer.problem.kind).toBe('no-project');
  });

  it('a project that never captured: no history yet, and how to make some', async () => {
    const project = makeProject();
    const answer = await clientIn(project.dir).history(5);
    rmSync(project.dir, { recursive: true, force: true });
    expect(answer).toEqual({ ok: false, problem: { kind: 'no-store', message: expect.stringContaining('dbtattic run -- dbt build') } });
  });

  it('a store held by another process: busy, not an error (the CLI waits 10 s, then exits 5)', async () => {
    const project = makeProject();
    writeSyntheticTarget({ invocationId: '0b5e55ed-0000-4000-8000-0000000000a1', generatedAt: '2026-02-01T10:00:00.000000Z' }, project.target);
    expect((await runCli(['capture'], { cwd: project.dir })).exitCode).toBe(0);
    const duckdb = pathToFileURL(createRequire(import.meta.url).resolve('@duckdb/node-api')).href;
    const holdStore = `const { DuckDBInstance } = await import(process.argv[1]);
const instance = await DuckDBInstance.create(process.argv[2]);
const connection = await instance.connect();
console.log('holding');
setInterval(() => { void instance; void connection; }, 60_000);`;
    const holder = startWatched(process.execPath, ['--input-type=module', '-e', holdStore, duckdb, path.join(project.dir, '.dbtattic', 'store.duckdb')]);
    try {
      await holder.waitForOutput('holding');
      const answer = await clientIn(project.dir).history(5);
      expect(!answer.ok && answer.problem.kind).toBe('busy');
    } finally {
      holder.child.kill();
      await holder.ended;
      rmSync(project.dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('a program that is not dbtattic (no JSON on stdout) is said to be so', async () => {
    const answer = await new AtticClient(serialCliRunner({ executable: 'echo', cwd: scratch }), 'echo').history(5);
    expect(answer).toEqual({ ok: false, problem: { kind: 'failed', message: expect.stringContaining('is "echo" dbtattic?') } });
  });
});

describe('answers', () => {
  it('history and query come back as the CLI printed them; SQL that starts like a flag stays SQL', async () => {
    const project = makeProject();
    const id = '0b5e55ed-0000-4000-8000-0000000000b2';
    writeSyntheticTarget({ invocationId: id, statuses: ['success', 'error'], generatedAt: '2026-02-02T10:00:00.000000Z' }, project.target);
    expect((await runCli(['capture'], { cwd: project.dir })).exitCode).toBe(0);
    const client = clientIn(project.dir);
    const history = await client.history(5);
    const failed = await client.failedRuns(5);
    const query = await client.query('-- a comment first\nselect 41 + 1 as answer');
    rmSync(project.dir, { recursive: true, force: true });
    expect(history.ok && history.value.map((run) => [run.invocation_id, run.outcome])).toEqual([[id, 'failed']]);
    expect(failed.ok && failed.value[0]?.failures?.map((f) => f.status)).toEqual(['error']);
    expect(query).toEqual({ ok: true, value: [{ answer: 42 }] });
  });

  it('calls run one at a time: two reads at once would fight over the store', async () => {
    // Each call takes a lock directory and fails if another call holds it.
    const script = path.join(scratch, 'exclusive.mjs');
    writeFileSync(
      script,
      `#!/usr/bin/env node
import { mkdirSync, rmdirSync } from 'node:fs';
try { mkdirSync('lock'); } catch { process.exit(9); }
setTimeout(() => { rmdirSync('lock'); process.stdout.write('[]'); }, 150);
`,
    );
    chmodSync(script, 0o755);
    const run = serialCliRunner({ executable: script, cwd: scratch });
    const outcomes = await Promise.all([run(['a']), run(['b']), run(['c'])]);
    expect(outcomes.map((o) => o.exitCode)).toEqual([0, 0, 0]);
  });
});
