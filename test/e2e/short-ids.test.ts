import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeProject, putTarget, runCli } from '../helpers/cli.js';
import { writeSyntheticTarget } from '../helpers/synthetic-artifacts.js';

/**
 * dbt Fusion's invocation ids are UUIDv7: runs a minute apart share their first 8 characters.
 * Every id printed must be the shortest prefix (8 at least) that names one invocation.
 */
describe('invocation ids as printed', () => {
  const project = makeProject();
  const ids = ['0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', '0199a1b2-c3f0-7123-8456-789abcdef012'];
  afterAll(() => rmSync(project.dir, { recursive: true, force: true }));

  it('are the shortest unique prefixes in capture, history and branch list, and each resolves back', async () => {
    const captured: string[] = [];
    for (const [i, invocationId] of ids.entries()) {
      const dir = writeSyntheticTarget({ invocationId, generatedAt: `2026-01-02T03:0${i}:05Z` });
      putTarget(project.target, { 'manifest.json': path.join(dir, 'manifest.json'), 'run_results.json': path.join(dir, 'run_results.json') });
      const capture = await runCli(['capture', '--branch', 'main'], { cwd: project.dir, env: { NO_COLOR: '1' } });
      expect(capture.exitCode, capture.stderr).toBe(0);
      captured.push(capture.stdout);
    }
    expect(captured[1]).toContain('0199a1b2-c3f\t');
    const history = await runCli(['history'], { cwd: project.dir });
    const printed = history.stdout
      .split('\n')
      .filter(Boolean)
      .slice(1)
      .map((line) => line.split('\t')[1]);
    expect(printed).toEqual(['0199a1b2-c3f', '0199a1b2-c3d']);
    const branches = await runCli(['branch', 'list'], { cwd: project.dir });
    expect(branches.stdout).toContain('0199a1b2-c3f');
    for (const [i, prefix] of printed.entries()) {
      const state = await runCli(['state', '--invocation', prefix!, '--json'], { cwd: project.dir });
      expect(JSON.parse(state.stdout)).toMatchObject({ invocation_id: ids[1 - i] });
    }
  });

  it('inspect and diff print ids that resolve back, and compare runtimes of completed nodes only', async () => {
    const other = makeProject();
    try {
      const runs = [
        { invocationId: '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', statuses: ['success', 'success'], times: [2, 1.5] },
        { invocationId: '0199a1b2-c3f0-7123-8456-789abcdef012', statuses: ['success', 'skipped'], times: [2.5, 0] },
        { invocationId: '0199a1b2-c3f0-7999-8456-789abcdef012', statuses: ['success', 'success'], times: [3, 1] },
      ];
      for (const [i, run] of runs.entries()) {
        const dir = writeSyntheticTarget({ ...run, generatedAt: `2026-01-02T03:0${i}:05Z` });
        rmSync(path.join(other.target, 'manifest.json'), { force: true });
        // The last run leaves only its run results: its manifest was never archived.
        putTarget(other.target, {
          ...(i < 2 ? { 'manifest.json': path.join(dir, 'manifest.json') } : {}),
          'run_results.json': path.join(dir, 'run_results.json'),
        });
        const capture = await runCli(['capture', '--branch', 'main'], { cwd: other.dir });
        expect(capture.exitCode, capture.stderr).toBe(0);
      }
      const inspect = await runCli(['inspect', '0199a1b2-c3f0-71'], { cwd: other.dir, env: { NO_COLOR: '1' } });
      expect(inspect.exitCode, inspect.stderr).toBe(0);
      expect(inspect.stdout).toMatch(/^since\s+0199a1b2-c3d /m);
      // m1 was skipped in the second run: its 0 s is no runtime; m0 went from 2 s to 2.5 s.
      expect(inspect.stdout).toContain('model.synthetic.m0: 2s → 2.5s (+0.5s)');
      expect(inspect.stdout).not.toMatch(/model.synthetic.m1: [\d.]+s →/);
      const diff = await runCli(['diff', '0199a1b2-c3f0-71', '0199a1b2-c3f0-79'], { cwd: other.dir, env: { NO_COLOR: '1' } });
      expect(diff.stdout).toMatch(/nodes\s+unknown: 0199a1b2-c3f0-79 has no manifest/);
      const nearest = await runCli(['diff', '0199a1b2-c3d', '0199a1b2-c3f0-79', '--nearest'], { cwd: other.dir, env: { NO_COLOR: '1' } });
      expect(nearest.stdout).toContain('manifests   0199a1b2-c3d → 0199a1b2-c3f0-71 ');
      for (const printed of ['0199a1b2-c3d', '0199a1b2-c3f0-71', '0199a1b2-c3f0-79']) {
        const state = await runCli(['inspect', printed, '--json'], { cwd: other.dir });
        expect(state.exitCode, `${printed}: ${state.stderr}`).toBe(0);
      }
    } finally {
      rmSync(other.dir, { recursive: true, force: true });
    }
  });
});
