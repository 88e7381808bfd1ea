import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { makeProject, runCli, runCliProcess } from '../helpers/cli.js';
import { writeSyntheticTarget } from '../helpers/synthetic-artifacts.js';

/**
 * The attack of issue 42, item 2, as it came: `branch create feat --from OLD` and
 * `forget --keep-last 1` started together as two processes, several times. Each trial must end
 * one of two ways: the branch exists and its base is kept (state and verify find it), or branch
 * create failed saying its base is gone. Never both exiting 0 with the base forgotten, which 2 of
 * 6 trials did. Both orders are pinned one at a time in test/unit/retention/forget-branch-order.
 */
const TRIALS = 4;

describe('branch create racing forget, in two processes', () => {
  const project = makeProject();
  afterAll(() => rmSync(project.dir, { recursive: true, force: true }));

  it(`${TRIALS} trials: either the branch keeps its base, or branch create says the base is gone`, async () => {
    const outcomes: string[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const [oldId, newId] = [1, 2].map((n) => `7ace0000-0000-4000-8000-0000000${trial}000${n}`);
      for (const [i, invocationId] of [oldId!, newId!].entries()) {
        writeSyntheticTarget({ invocationId, command: 'build', target: 'prod', generatedAt: `2026-03-0${trial + 1}T0${i}:00:00.000000Z` }, project.target);
        expect((await runCli(['capture', '--quiet', '--branch', 'main'], { cwd: project.dir })).exitCode).toBe(0);
      }
      const branch = `feat-${trial}`;
      const [created, forgot] = await Promise.all([
        runCliProcess(['branch', 'create', branch, '--from', oldId!], { cwd: project.dir }),
        runCliProcess(['forget', '--keep-last', '1', '--json'], { cwd: project.dir }),
      ]);
      expect(forgot.exitCode, forgot.stderr).toBe(0);
      if (created.exitCode === 0) {
        const state = await runCli(['state', '--last-success', '--branch', branch, '--json'], { cwd: project.dir });
        expect(state.exitCode, state.stderr).toBe(0);
        expect(JSON.parse(state.stdout)).toMatchObject({ invocation_id: oldId });
        outcomes.push('kept');
      } else {
        expect(created.exitCode, created.stderr).toBe(3);
        expect(created.stderr).toMatch(/not in the archive any more|No invocation/);
        outcomes.push('refused');
      }
      const verified = await runCli(['verify', '--json'], { cwd: project.dir });
      expect(verified.exitCode, verified.stdout).toBe(0);
    }
    expect(outcomes).toHaveLength(TRIALS);
  }, 120_000);
});
