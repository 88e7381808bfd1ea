import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { makeProject, runCli } from '../helpers/cli.js';
import { syntheticManifest, syntheticRunResults } from '../helpers/synthetic-artifacts.js';

/** Paths a user can get wrong: each is a usage error that says what to do, never an internal one. */
const INVOCATION = '22222222-2222-4333-8444-555555555555';

function capturedProject(): { dir: string; target: string } {
  const made = makeProject();
  onTestFinished(() => rmSync(made.dir, { recursive: true, force: true }));
  writeFileSync(path.join(made.target, 'manifest.json'), syntheticManifest({ invocationId: INVOCATION }));
  writeFileSync(path.join(made.target, 'run_results.json'), syntheticRunResults({ invocationId: INVOCATION }));
  return made;
}

describe('paths a command cannot use', () => {
  it('report --out naming a directory', async () => {
    const { dir } = capturedProject();
    mkdirSync(path.join(dir, 'reports'));
    const result = await runCli(['report', '--out', 'reports', '--json'], { cwd: dir });
    expect(result.exitCode).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'usage', message: expect.stringContaining('--out reports is a directory') } });
  });

  it('report --out where nothing can be written: the disk refused (exit 7), not an internal error', async (ctx) => {
    // sysfs takes no new files, even from root (who passes every permission check elsewhere).
    try {
      writeFileSync('/sys/dbtattic-probe', '');
      ctx.skip();
    } catch {
      // refused, as wanted
    }
    const { dir } = capturedProject();
    expect((await runCli(['capture'], { cwd: dir })).exitCode).toBe(0);
    const result = await runCli(['report', '--out', '/sys/report.html', '--json'], { cwd: dir });
    expect(result.exitCode, result.stdout).toBe(7);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'read-only', message: expect.stringContaining('cannot be written') } });
  });

  it('push to a file', async () => {
    const { dir } = capturedProject();
    expect((await runCli(['capture'], { cwd: dir })).exitCode).toBe(0);
    writeFileSync(path.join(dir, 'afile'), 'not an archive');
    const result = await runCli(['push', path.join(dir, 'afile')], { cwd: dir });
    expect(result.exitCode, result.stderr).toBe(2);
    expect(result.stderr).toContain('is not an archive');
    expect(readFileSync(path.join(dir, 'afile'), 'utf8')).toBe('not an archive');
  });

  it('plan over a manifest cut short: the reason, not a plan of an older manifest', async () => {
    const { dir, target } = capturedProject();
    expect((await runCli(['capture'], { cwd: dir })).exitCode).toBe(0);
    const whole = readFileSync(path.join(target, 'manifest.json'), 'utf8');
    writeFileSync(path.join(target, 'manifest.json'), whole.slice(0, whole.length - 20));
    for (const command of ['plan', 'explain']) {
      const result = await runCli(command === 'plan' ? ['plan', '--no-record'] : ['explain', 'm0'], { cwd: dir });
      expect(result.exitCode, `${command}: ${result.stderr}`).toBe(3);
      expect(result.stderr).toMatch(/No readable manifest\.json .*not complete JSON/);
    }
  });

  it('plan --branch or --defer-to naming a branch no run is filed on', async () => {
    const { dir } = capturedProject();
    expect((await runCli(['capture', '--branch', 'main'], { cwd: dir })).exitCode).toBe(0);
    for (const args of [
      ['--branch', 'mian'],
      ['--branch', 'main', '--defer-to', 'prdo'],
    ]) {
      const result = await runCli(['plan', '--no-record', ...args], { cwd: dir });
      expect(result.exitCode, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/No run is filed on branch '(mian|prdo)' \(branches with runs: main\)/);
    }
    expect((await runCli(['plan', '--no-record', '--branch', 'main'], { cwd: dir })).exitCode).toBe(0);
  });

  it('plan --select that matches nothing says so', async () => {
    const { dir } = capturedProject();
    const result = await runCli(['plan', '--no-record', '--select', 'typo_model'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain('--select typo_model matched no model, seed, snapshot or test');
    expect((await runCli(['plan', '--no-record', '--select', 'm0'], { cwd: dir })).stderr).not.toContain('matched no');
  });
});

describe('flags that contradict each other', () => {
  it('state: --per-node with --last-success or --invocation, --last-success with --invocation', async () => {
    const { dir } = capturedProject();
    expect((await runCli(['capture'], { cwd: dir })).exitCode).toBe(0);
    for (const args of [
      ['--per-node', '--last-success'],
      ['--per-node', '--invocation', INVOCATION],
      ['--last-success', '--invocation', INVOCATION],
    ]) {
      const result = await runCli(['state', ...args], { cwd: dir });
      expect(result.exitCode, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('Give one of them.');
    }
  });
});

describe('values a script can get wrong', () => {
  const archiveFiles = (dir: string): string[] => listFiles(path.join(dir, '.dbtattic', 'archive')).map((f) => `${f}:${readFileSync(f).length}`);

  it('report --out at a FIFO, a symlink or under a file: refused, and what is there stays', async () => {
    const { dir } = capturedProject();
    expect((await runCli(['capture'], { cwd: dir })).exitCode).toBe(0);
    execFileSync('mkfifo', [path.join(dir, 'fifo')]);
    symlinkSync(path.join(dir, 'elsewhere.html'), path.join(dir, 'link.html'));
    writeFileSync(path.join(dir, 'afile'), 'x');
    for (const out of ['fifo', 'link.html', 'afile/report.html']) {
      const result = await runCli(['report', '--out', out], { cwd: dir });
      expect(result.exitCode, `${out}: ${result.stderr}`).toBe(2);
    }
    expect(lstatSync(path.join(dir, 'fifo')).isFIFO()).toBe(true);
    expect(lstatSync(path.join(dir, 'link.html')).isSymbolicLink()).toBe(true);
  });

  it('numbers past what a count or a timer can hold, an empty branch, a store URI with no bucket: usage errors (exit 2)', async () => {
    const { dir } = capturedProject();
    expect((await runCli(['capture'], { cwd: dir })).exitCode).toBe(0);
    const before = archiveFiles(dir);
    for (const args of [
      ['history', '--limit', '99999999999999999999'],
      ['report', '--last', '99999999999999999999', '--out', 'r.html'],
      ['query', 'select 1', '--timeout', '2147484'],
      ['mcp', '--max-seconds', '99999999999'],
      ['inspect', '@'],
      ['diff', '@', '@main'],
      ['branch', 'delete', ''],
      ['capture', '--store', 's3://'],
      // An unset $ID in a script: never read as not given.
      ['state', '--invocation', ''],
      ['plan', '--invocation', '', '--no-record'],
      ['history', '--branch', ''],
      ['--store', '', 'history'],
    ]) {
      const result = await runCli(args, { cwd: dir });
      expect(result.exitCode, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr, args.join(' ')).not.toMatch(/internal error|TimeoutOverflowWarning/);
    }
    expect(existsSync(path.join(dir, 's3:'))).toBe(false);
    expect(archiveFiles(dir)).toEqual(before);
  });

  it('plan --explain of a node the manifest lacks records no plan', async () => {
    const { dir } = capturedProject();
    expect((await runCli(['capture'], { cwd: dir })).exitCode).toBe(0);
    const before = archiveFiles(dir);
    expect((await runCli(['plan', '--explain', 'no_such_node'], { cwd: dir })).exitCode).toBe(3);
    expect(archiveFiles(dir)).toEqual(before);
  });

  it('report --format markdown --json answers in JSON', async () => {
    const { dir, target } = capturedProject();
    expect((await runCli(['capture'], { cwd: dir })).exitCode).toBe(0);
    // A comparison needs a run before: a second one, a minute later.
    const second = '33333333-2222-4333-8444-555555555555';
    writeFileSync(path.join(target, 'manifest.json'), syntheticManifest({ invocationId: second, generatedAt: '2026-01-02T03:05:05Z' }));
    writeFileSync(path.join(target, 'run_results.json'), syntheticRunResults({ invocationId: second, generatedAt: '2026-01-02T03:05:05Z' }));
    expect((await runCli(['capture'], { cwd: dir })).exitCode).toBe(0);
    const result = await runCli(['report', '--format', 'markdown', '--json'], { cwd: dir });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ markdown: expect.stringContaining('33333333') });
  });
});

function listFiles(root: string): string[] {
  return readdirSync(root, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listFiles(path.join(root, e.name)) : [path.join(root, e.name)]))
    .sort();
}
