import { readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, exitCodeOf } from '../../../src/capture/run-command.js';
import { AtticError } from '../../../src/errors.js';
import { CORPUS_DIR, hasCorpus } from '../../helpers/corpus.js';
import { installFakeDbt, type FakeDbt } from '../../helpers/fake-dbt.js';
import { startWatched } from '../../helpers/watched-process.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const PASSING = path.join(CORPUS_DIR, 'brooklyn-dbt-artifacts/integration-seq-snowflake-1.0/05_test');
const FAILING = path.join(CORPUS_DIR, 'aec-hannah-bq-1.0.3/target-seq/01_2022-03-01_18f38be0');

let fake: FakeDbt;
let work: string;

beforeAll(async () => {
  fake = await installFakeDbt();
  work = await mkdtemp(path.join(tmpdir(), 'dbtattic-run-command-'));
  await writeFile(path.join(work, 'dbt_project.yml'), 'name: demo\n');
});
afterAll(async () => {
  await fake.remove();
  await rm(work, { recursive: true, force: true });
});

const runDbt = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCommand(['dbt', ...args, '-q'], { cwd: work, env: fake.env({ FAKE_DBT_DELAY_MS: '0', ...env }) });

describe('runCommand', () => {
  it('passes exit codes 0, 1 and 2 through unchanged', async () => {
    expect((await runDbt(['debug'])).exitCode).toBe(0);
    expect((await runDbt(['run'], { FAKE_DBT_EXIT: '1' })).exitCode).toBe(1);
    expect((await runDbt(['no-such-command'])).exitCode).toBe(2);
    const odd = await runCommand([process.execPath, '-e', 'process.exit(42)'], { cwd: work });
    expect(odd).toMatchObject({ exitCode: 42, signal: null });
    expect(odd.endedAt.getTime()).toBeGreaterThanOrEqual(odd.startedAt.getTime());
  });

  it('resolves with 127 and the reason when the command is missing or not executable', async () => {
    const missing = await runCommand(['dbtattic-no-such-binary'], { cwd: work });
    expect(missing.exitCode).toBe(127);
    expect(missing.spawnError).toContain('command not found');
    const plain = path.join(work, 'not-executable');
    await writeFile(plain, '#!/bin/sh\n');
    await chmod(plain, 0o644);
    const denied = await runCommand([plain], { cwd: work });
    expect(denied.exitCode).toBe(127);
    expect(denied.spawnError).toContain('permission denied');
  });

  it('reports a command killed by a signal as 128 + its number', async () => {
    const killed = await runCommand([process.execPath, '-e', 'process.kill(process.pid, "SIGKILL")'], { cwd: work });
    expect(killed).toMatchObject({ exitCode: 137, signal: 'SIGKILL' });
    expect(exitCodeOf(null, 'SIGINT')).toBe(130);
    expect(exitCodeOf(3, null)).toBe(3);
  });

  it('removes its signal listeners afterwards', async () => {
    const before = [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];
    await runDbt(['debug']);
    await runCommand(['dbtattic-no-such-binary'], { cwd: work });
    expect([process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')]).toEqual(before);
  });

  it('refuses an empty command with a usage error', () => {
    expect(() => runCommand([], { cwd: work })).toThrow(AtticError);
  });

  it.skipIf(!hasCorpus)('exits 1 like dbt when a replayed result failed', async () => {
    expect((await runDbt(['build'], { FAKE_DBT_REPLAY: FAILING })).exitCode).toBe(1);
  });
});

/**
 * Signals are sent to a separate Node process that runs runCommand, as `dbtattic run` would be.
 * It runs in its own process group, so it is never the terminal's foreground group and forwards
 * SIGINT (see keyboardReachesChild). vitest cannot load TypeScript in a child, hence the transpile.
 */
describe('runCommand in a process that receives signals', () => {
  let runner: string;

  beforeAll(async () => {
    runner = await writeRunner(work);
  });

  // Each SIGINT here goes to the runner alone (its own session, no terminal): passed on at once
  // to dbt, which runs in a group of its own (run-command.ts).
  const startRunner = (env: NodeJS.ProcessEnv) =>
    startWatched(process.execPath, [runner, JSON.stringify(['dbt', 'test']), work], {
      env: fake.env({ FAKE_DBT_DELAY_MS: '0', ...env }),
      detached: true,
    });

  it('forwards SIGINT to dbt, survives it, and exits 130 where dbt exits 2 after a Ctrl-C', async () => {
    const run = startRunner({ FAKE_DBT_HANG: '1' });
    await run.waitForOutput('Running with dbt=');
    run.child.kill('SIGINT');
    const end = await run.ended;
    expect(end.stdout).toContain('Encountered an error:');
    expect(outcomeOf(end.stdout)).toMatchObject({ exitCode: 130, signal: null, interruptedBy: 'SIGINT' });
    expect(end.code).toBe(130);
  });

  it('forwards SIGTERM: dbt dies of it and the outcome is 143', async () => {
    const run = startRunner({ FAKE_DBT_HANG: '1' });
    await run.waitForOutput('Running with dbt=');
    run.child.kill('SIGTERM');
    const end = await run.ended;
    expect(outcomeOf(end.stdout)).toMatchObject({ exitCode: 143, signal: 'SIGTERM' });
    expect(end.code).toBe(143);
  });

  it.skipIf(!hasCorpus)('lets dbt write its partial run_results.json on Ctrl-C', async () => {
    const run = startRunner({ FAKE_DBT_REPLAY: PASSING, FAKE_DBT_DELAY_MS: '300' });
    await run.waitForOutput('1 of 18 PASS');
    run.child.kill('SIGINT');
    const end = await run.ended;
    expect(outcomeOf(end.stdout).exitCode).toBe(130);
    const partial = JSON.parse(readFileSync(path.join(work, 'target', 'run_results.json'), 'utf8'));
    const finished = end.stdout.match(/\d+ of 18 PASS/g) ?? [];
    expect(partial.results).toHaveLength(finished.length);
    expect(finished.length).toBeGreaterThanOrEqual(1);
  });
});

function outcomeOf(stdout: string): { exitCode: number; signal: string | null } {
  const line = stdout.split('\n').find((l) => l.startsWith('OUTCOME '));
  if (line === undefined) throw new Error(`the runner printed no outcome:\n${stdout}`);
  return JSON.parse(line.slice('OUTCOME '.length));
}

/** Transpiles run-command.ts and what it imports into `dir`, beside a script that calls it. */
async function writeRunner(dir: string): Promise<string> {
  for (const file of ['src/errors.ts', 'src/capture/run-command.ts']) {
    const source = readFileSync(path.join(REPO, file), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    const out = path.join(dir, file.replace(/\.ts$/, '.js'));
    await mkdir(path.dirname(out), { recursive: true });
    await writeFile(out, outputText);
  }
  await writeFile(path.join(dir, 'package.json'), '{"type": "module"}');
  const script = path.join(dir, 'runner.js');
  await writeFile(
    script,
    [
      "import { runCommand } from './src/capture/run-command.js';",
      'const outcome = await runCommand(JSON.parse(process.argv[2]), { cwd: process.argv[3] });',
      "process.stdout.write('OUTCOME ' + JSON.stringify(outcome) + '\\n');",
      'process.exit(outcome.exitCode);',
    ].join('\n'),
  );
  return script;
}
