import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invocationIdOf } from '../helpers/archive-files.js';
import { makeProject, runCli, runCliProcess } from '../helpers/cli.js';
import { installFakeDbt, type FakeDbt } from '../helpers/fake-dbt.js';
import { storedInvocations } from '../helpers/store-dump.js';
import { holdStore } from '../helpers/store-holder.js';
import { writeSyntheticTarget } from '../helpers/synthetic-artifacts.js';

/**
 * `run` returns dbt's exit code as soon as the archive holds what dbt wrote; the store catches
 * up in a detached `dbtattic sync --after-capture` (cli/after-capture.ts), so that DuckDB's
 * load, ingest and checkpoint are not added to every build (issue 43's overhead budget).
 */
const PASSING = '3b9e0c1d-aaaa-4bbb-8ccc-000000000001';
const FAILING = '3b9e0c1d-aaaa-4bbb-8ccc-000000000002';

let fake: FakeDbt;
beforeAll(async () => {
  fake = await installFakeDbt();
});
afterAll(() => fake.remove());

function runDbt(cwd: string, replay: string) {
  return runCliProcess(['run', '--', 'dbt', 'build'], {
    cwd,
    env: { PATH: `${fake.binDir}${path.delimiter}${process.env.PATH ?? ''}`, FAKE_DBT_DELAY_MS: '0', FAKE_DBT_REPLAY: replay },
  });
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the store after `dbtattic run`', () => {
  it('catches up with no reading command, from a child that outlives the run', async () => {
    const project = makeProject();
    const replay = writeSyntheticTarget({ invocationId: PASSING, statuses: ['success', 'pass'] });
    const result = await runDbt(project.dir, replay);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(invocationIdOf(path.join(replay, 'run_results.json'))).toBe(PASSING);
    const storeFile = path.join(project.dir, '.dbtattic', 'store.duckdb');
    expect(
      await eventually(
        () => storedInvocations(storeFile).catch((): string[] => []),
        (ids) => ids.includes(PASSING),
      ),
    ).toEqual([PASSING]);
  }, 60_000);

  it("is never waited for: held by another process, run still ends at once with dbt's code and says nothing of it; the next read shows the run", async () => {
    const project = makeProject();
    const storeFile = path.join(project.dir, '.dbtattic', 'store.duckdb');
    const first = await runDbt(project.dir, writeSyntheticTarget({ invocationId: PASSING, statuses: ['success'] }));
    expect(first.exitCode).toBe(0);
    await eventually(
      () => storedInvocations(storeFile).catch((): string[] => []),
      (ids) => ids.includes(PASSING),
    );

    const holder = await holdStore(storeFile);
    try {
      const second = await runDbt(project.dir, writeSyntheticTarget({ invocationId: FAILING, statuses: ['success', 'error'] }));
      expect(second.exitCode).toBe(1);
      expect(second.stderr).not.toMatch(/store/);
      expect(holder.child.exitCode).toBeNull();
    } finally {
      holder.child.kill();
      await holder.ended;
    }
    const history = await runCli(['history', '--json'], { cwd: project.dir });
    expect(history.exitCode, history.stderr).toBe(0);
    expect((JSON.parse(history.stdout) as { invocation_id: string; outcome: string }[]).map((r) => [r.invocation_id, r.outcome])).toEqual([
      [FAILING, 'failed'],
      [PASSING, 'ok'],
    ]);
  }, 60_000);
});
