import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeProject } from '../helpers/cli.js';
import { installFakeDbt, type FakeDbt } from '../helpers/fake-dbt.js';
import { writeSyntheticTarget } from '../helpers/synthetic-artifacts.js';
import { startWatched } from '../helpers/watched-process.js';
import { INSTALLED_BIN, atticJson, lineEnv } from './installed.js';

/**
 * Signals are where Node lines differ most (process groups, forwarding, exit by a signal): the
 * installed `run` interrupted with SIGINT forwards it to the stand-in dbt hanging mid-run,
 * captures the partial results its clean-up writes and exits with dbt's code.
 */
let fake: FakeDbt | undefined;
afterAll(async () => fake?.remove());

describe('the installed run, interrupted', () => {
  it('forwards SIGINT to dbt, captures its partial run_results and exits 130', async () => {
    fake = await installFakeDbt();
    const project = makeProject();
    const id = '88888888-aaaa-4bbb-8ccc-000000000008';
    const replay = writeSyntheticTarget({ invocationId: id, statuses: ['success', 'success'] });
    const env = { ...lineEnv(), PATH: `${fake.binDir}${path.delimiter}${lineEnv().PATH}`, FAKE_DBT_REPLAY: replay, FAKE_DBT_HANG: '1' };
    const watched = startWatched(INSTALLED_BIN, ['run', '--', 'dbt', 'build'], { cwd: project.dir, env, detached: true });
    try {
      await watched.waitForOutput('START model.synthetic.m0');
      watched.child.kill('SIGINT');
      const end = await watched.ended;
      expect(end.code, end.stderr).toBe(130);
    } finally {
      if (watched.child.exitCode === null && watched.child.signalCode === null) process.kill(-watched.child.pid!, 'SIGKILL');
    }
    const partial = JSON.parse(readFileSync(path.join(project.target, 'run_results.json'), 'utf8')) as {
      metadata: { invocation_id: string };
      results: unknown[];
    };
    expect(partial).toMatchObject({ metadata: { invocation_id: id }, results: [] });
    expect(atticJson<{ invocation_id: string }[]>(['history'], project.dir).map((r) => r.invocation_id)).toEqual([id]);
    rmSync(project.dir, { recursive: true, force: true });
  });
});
