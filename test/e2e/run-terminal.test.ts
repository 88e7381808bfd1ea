import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveDirOf, readCaptureRecords, sha256Of } from '../helpers/archive-files.js';
import { BIN, makeProject } from '../helpers/cli.js';
import { installFakeDbt, type FakeDbt } from '../helpers/fake-dbt.js';
import { writeSyntheticTarget } from '../helpers/synthetic-artifacts.js';

/**
 * Ctrl-C at a terminal: the built CLI runs on a pseudo-terminal, in its foreground process
 * group, with dbt started by `run` in that same group. Typing Ctrl-C there makes the terminal
 * send SIGINT to both at once. dbt must get exactly that one: a second SIGINT from dbtattic
 * would be dbt's "second Ctrl-C", which kills its clean-up before the partial
 * run_results.json is written. (test/e2e/run.test.ts covers a SIGINT sent to dbtattic alone,
 * which it must forward.) Needs python3 for its pty module.
 */
const TERMINAL = path.join(path.dirname(fileURLToPath(import.meta.url)), '../helpers/terminal.py');

interface TerminalRun {
  exit_code: number;
  interrupted: boolean;
  output: string;
}

function onTerminal(argv: string[], cwd: string, waitFor: string, env: NodeJS.ProcessEnv): Promise<TerminalRun> {
  return new Promise((resolve, reject) => {
    execFile('python3', [TERMINAL, JSON.stringify(argv), cwd, waitFor], { env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`terminal.py failed: ${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as TerminalRun);
    });
  });
}

let fake: FakeDbt;
beforeAll(async () => {
  fake = await installFakeDbt();
});
afterAll(() => fake.remove());

describe('dbtattic run, Ctrl-C typed at a terminal', () => {
  it('lets dbt clean up after the one SIGINT the terminal sent, then captures its partial run_results', async () => {
    const project = makeProject();
    const replay = writeSyntheticTarget({ invocationId: '77777777-aaaa-4bbb-8ccc-000000000007', statuses: ['success', 'success'] });
    // dbt's clean-up (cancelling the running query) takes a while: time for a second SIGINT to land.
    const env = fake.env({ NO_COLOR: '1', FAKE_DBT_REPLAY: replay, FAKE_DBT_HANG: '1', FAKE_DBT_CANCEL_MS: '1500', FAKE_DBT_DELAY_MS: '0' });
    const run = await onTerminal([process.execPath, BIN, 'run', '--', 'dbt', 'build'], project.dir, 'START model.synthetic.m0', env);
    expect(run.interrupted).toBe(true);
    expect(run.output).toContain('Exited because of keyboard interrupt');
    expect(run.exit_code).toBe(130);
    const partial = path.join(project.target, 'run_results.json');
    expect((JSON.parse(readFileSync(partial, 'utf8')) as { results: unknown[] }).results).toEqual([]);
    const post = readCaptureRecords(archiveDirOf(project.dir)).filter((r) => r.phase === 'post');
    expect(post).toHaveLength(1);
    expect(post[0]!.run).toMatchObject({ exit_code: 130, signal: null });
    expect(post[0]!.artifacts.find((a) => a.artifact === 'run_results')).toMatchObject({ status: 'captured', sha256: sha256Of(partial) });
  });
});
