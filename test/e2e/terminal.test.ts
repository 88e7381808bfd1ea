import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '../../src/archive/index.js';
import { captureTarget } from '../../src/capture/index.js';
import { ARTIFACT_TYPES } from '../../src/vocab/index.js';
import { BIN, makeProject, runCli } from '../helpers/cli.js';
import { writeSyntheticTarget } from '../helpers/synthetic-artifacts.js';

/**
 * On a terminal: tables fit its width, and output longer than the screen goes through a pager.
 * Run under a pseudo-terminal of a set size with util-linux `script`, as a user's shell would.
 */
const project = makeProject();
const RUNS = 12;

/** Files synthetic run `i` in the archive, as a capture would, without catching the store up. */
async function captureRun(i: number): Promise<void> {
  const backend = await openArchive(path.join(project.dir, '.dbtattic', 'archive'), { create: true });
  const dir = path.join(project.dir, 'runs', String(i));
  mkdirSync(dir, { recursive: true });
  const inv = {
    invocationId: `7e2a1a00-0000-4000-8000-0000000000${String(i).padStart(2, '0')}`,
    command: 'build',
    target: 'a-rather-long-target-name',
    statuses: ['success', 'error', 'skipped'],
    generatedAt: `2026-02-${String(i + 1).padStart(2, '0')}T10:00:00Z`,
  };
  writeSyntheticTarget(inv, dir);
  await captureTarget(backend, {
    targetDir: dir,
    artifacts: ARTIFACT_TYPES,
    phase: 'manual',
    toolVersion: 'test',
    branch: 'a-branch-with-a-long-name',
    now: new Date(Date.parse(inv.generatedAt) + 60_000),
  });
}

beforeAll(async () => {
  for (let i = 0; i < RUNS; i++) await captureRun(i);
  // Catch the store up once, off the terminal.
  execFileSync(process.execPath, [BIN, 'history'], { cwd: project.dir, env: { PATH: process.env.PATH ?? '' } });
}, 120_000);
afterAll(() => rmSync(project.dir, { recursive: true, force: true }));

/** Runs dbtattic with stdout on a pseudo-terminal of `rows` × `cols`; returns what the terminal showed. */
function onTerminal(args: string[], size: { rows: number; cols: number }, env: Record<string, string> = {}): string {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const out = execFileSync('script', ['-qec', `stty rows ${size.rows} cols ${size.cols}; ${quoted}`, '/dev/null'], {
    cwd: project.dir,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', TERM: 'dumb', ...env },
    encoding: 'utf8',
  });
  return out.replace(/\r/g, '');
}

describe('on a terminal', () => {
  it('fits tables into its width', () => {
    const wide = onTerminal(['history', '--no-pager'], { rows: 100, cols: 200 });
    const longest = Math.max(...wide.split('\n').map((line) => [...line].length));
    expect(longest).toBeGreaterThan(80);
    const narrow = onTerminal(['history', '--no-pager'], { rows: 100, cols: 80 });
    const lines = narrow.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(RUNS);
    for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(80);
    // Nothing cut: columns left out, text wrapped, or a record a field a line.
    expect(narrow).not.toContain('…');
  });

  it('shows progress while a reading command catches the store up, and none without a terminal', async () => {
    await captureRun(RUNS);
    expect(onTerminal(['info', '--no-pager'], { rows: 100, cols: 200 })).toMatch(/catching up \d+\/\d+ \(\d+%\)/);
    await captureRun(RUNS + 1);
    // A CI runner that gives its job a terminal: every redraw would land in the log.
    expect(onTerminal(['info', '--no-pager'], { rows: 100, cols: 200 }, { CI: 'true' })).not.toContain('catching up');
    await captureRun(RUNS + 2);
    const piped = await runCli(['info'], { cwd: project.dir });
    expect(piped.exitCode).toBe(0);
    expect(piped.stderr).not.toContain('catching up');
  });

  it('sends output longer than the screen through PAGER, and not with --no-pager or when it fits', () => {
    const env = { PAGER: 'sed s/^/PAGED:/' };
    const paged = onTerminal(['history'], { rows: 10, cols: 200 }, env);
    expect(
      paged
        .split('\n')
        .filter(Boolean)
        .every((line) => line.startsWith('PAGED:')),
    ).toBe(true);
    expect(onTerminal(['history', '--no-pager'], { rows: 10, cols: 200 }, env)).not.toContain('PAGED:');
    expect(onTerminal(['history', '--limit', '2'], { rows: 10, cols: 200 }, env)).not.toContain('PAGED:');
    expect(onTerminal(['history'], { rows: 10, cols: 200 }, { PAGER: '' })).not.toContain('PAGED:');
  });

  it('streams a long result through the pager instead of holding it whole', () => {
    // 1.5 M rows held whole take several times the 40 MB heap allowed here; streamed they never do.
    const env = { PAGER: 'tail -n 1', NODE_OPTIONS: '--max-old-space-size=40' };
    const shown = onTerminal(['query', '--format', 'csv', 'select range as n from range(1500000)'], { rows: 10, cols: 80 }, env);
    expect(shown.trim()).toBe('1499999');
  }, 120_000);
});
