import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeProject, runCli } from '../helpers/cli.js';
import { writeSyntheticTarget } from '../helpers/synthetic-artifacts.js';

/**
 * The README's shell wrapper captures a run before the next dbt command: after a `git checkout`,
 * the branch checked out is not the one dbt ran on. The run is filed on the branch git's reflog
 * says HEAD was on when dbt wrote the artifacts.
 */
describe('a run captured after a checkout (the shell wrapper)', () => {
  const project = makeProject();
  afterAll(() => rmSync(project.dir, { recursive: true, force: true }));
  const git = (...args: string[]): string =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'commit.gpgsign=false', ...args], {
      cwd: project.dir,
      encoding: 'utf8',
    }).trim();
  const wait = (ms: number): void => void execFileSync('sleep', [String(ms / 1000)]);

  it('is filed on the branch and commit dbt ran on, not the one checked out at the capture', async () => {
    writeFileSync(path.join(project.dir, '.gitignore'), 'target/\n.dbtattic/\n');
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'first');
    const mainSha = git('rev-parse', 'HEAD');
    wait(1100);
    // dbt build on main: its artifacts, written now.
    const id = '66666666-aaaa-4bbb-8ccc-000000000006';
    writeSyntheticTarget({ invocationId: id, command: 'build', statuses: ['success'], generatedAt: new Date().toISOString() }, project.target);
    wait(1100);
    git('checkout', '-q', '-b', 'feature');
    // The wrapper, in front of the next dbt command on feature.
    expect((await runCli(['capture', '--quiet', '--phase', 'pre'], { cwd: project.dir, env: { NO_COLOR: '1' } })).exitCode).toBe(0);
    const [row] = JSON.parse((await runCli(['history', '--json'], { cwd: project.dir })).stdout) as {
      invocation_id: string;
      branch: string;
      git_sha: string;
    }[];
    expect(row).toMatchObject({ invocation_id: id, branch: 'main', git_sha: mainSha });
    const state = await runCli(['state', '--last-success', '--branch', 'main', '--json'], { cwd: project.dir });
    expect(JSON.parse(state.stdout)).toMatchObject({ invocation_id: id });
  });
});
