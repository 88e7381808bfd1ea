import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeProject, runCli } from '../helpers/cli.js';
import { writeSyntheticTarget } from '../helpers/synthetic-artifacts.js';

/**
 * A `--branch` that has never existed (issue 44, item 5): `state --last-success --branch mian`
 * exited 3, which README's slim-CI recipe reads as "build everything", so a typo turned slim CI
 * off unseen; history, report and forget answered for an empty line. Each is refused with exit 2
 * naming the branches there are; a branch that exists keeps its answers.
 */
describe('a mistyped --branch', () => {
  const project = makeProject();
  const cli = (...args: string[]) => runCli(args, { cwd: project.dir });
  beforeAll(async () => {
    writeSyntheticTarget({ invocationId: '3a1d0000-0000-4000-8000-000000000001', command: 'build' }, project.target);
    expect((await cli('capture', '--quiet', '--branch', 'main')).exitCode).toBe(0);
    expect((await cli('branch', 'create', 'feature-x', '--from', '3a1d0000')).exitCode).toBe(0);
  });
  afterAll(() => rmSync(project.dir, { recursive: true, force: true }));

  it.each([
    [['state', '--last-success', '--branch', 'mian']],
    [['state', '--per-node', '--branch', 'mian']],
    [['history', '--branch', 'mian']],
    [['report', '--branch', 'mian', '--out', 'r.html']],
    [['forget', '--branch', 'mian', '--keep-last', '1', '--dry-run']],
    [['plan', '--branch', 'mian', '--no-record']],
  ])('%j exits 2 and names the branches there are', async (args) => {
    const result = await cli(...args);
    expect(result.exitCode, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/branch 'mian'.*(branches: feature-x, main|branches with runs: main)/);
    expect(result.stdout).toBe('');
  });

  it('a branch that exists answers as before: main has its run, feature-x falls back to its base', async () => {
    expect((await cli('state', '--last-success', '--branch', 'main')).exitCode).toBe(0);
    expect((await cli('state', '--last-success', '--branch', 'feature-x')).exitCode).toBe(0);
    expect((await cli('history', '--branch', 'feature-x')).exitCode).toBe(0);
  });
});
