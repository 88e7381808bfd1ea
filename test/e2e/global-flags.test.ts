import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeProject, runCli } from '../helpers/cli.js';
import { writeSyntheticTarget } from '../helpers/synthetic-artifacts.js';

/** Every user types `dbtattic capture --store X`: global flags work after the subcommand too. */
const project = makeProject();
writeSyntheticTarget({ invocationId: '91091091-0000-4000-8000-000000000001', statuses: ['success'] }, project.target);
const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'attic-elsewhere-'));
afterAll(() => {
  rmSync(project.dir, { recursive: true, force: true });
  rmSync(elsewhere, { recursive: true, force: true });
});

const LEAVES = ['capture', 'run', 'state', 'history', 'query', 'rebuild', 'inspect', 'diff', 'branch list', 'branch create', 'branch delete', 'verify', 'info'];

describe('global flags', () => {
  it('are accepted after the subcommand, from any directory', async () => {
    const store = path.join(elsewhere, 'store');
    const capture = await runCli(['capture', '--project-dir', project.dir, '--store', store, '--json'], { cwd: elsewhere });
    expect(capture.stderr).toBe('');
    expect(capture.exitCode).toBe(0);
    expect(existsSync(path.join(store, 'archive'))).toBe(true);
    const history = await runCli(['history', '--json', '--store', store, '--project-dir', project.dir], { cwd: elsewhere });
    expect(history.exitCode).toBe(0);
    expect((JSON.parse(history.stdout) as { invocation_id: string }[]).map((r) => r.invocation_id)).toEqual(['91091091-0000-4000-8000-000000000001']);
    const nested = await runCli(['branch', 'list', '--json', '--store', store, '--project-dir', project.dir], { cwd: elsewhere });
    expect(nested.exitCode).toBe(0);
  });

  it('are still accepted before it', async () => {
    const store = path.join(elsewhere, 'before');
    const capture = await runCli(['--project-dir', project.dir, '--store', store, 'capture', '--quiet'], { cwd: elsewhere });
    expect(capture.exitCode).toBe(0);
    expect(existsSync(path.join(store, 'archive'))).toBe(true);
  });

  it.each(LEAVES)('are listed in `%s --help`', async (leaf) => {
    const help = await runCli([...leaf.split(' '), '--help'], { cwd: elsewhere });
    expect(help.exitCode).toBe(0);
    const globals = help.stdout.slice(help.stdout.indexOf('Global options:'));
    for (const flag of ['--store <dir>', '--project-dir <dir>', '--target-path <dir>']) expect(globals).toContain(flag);
  });
});
