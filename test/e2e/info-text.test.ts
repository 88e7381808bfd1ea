import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeProject, runCli } from '../helpers/cli.js';
import { CORPUS_DIR, hasCorpus } from '../helpers/corpus.js';

/** Issue 44 item 12: `info` printed "(-x)" for an empty archive and its rows as one 600-character line. */
const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

async function infoOf(capture: string[]): Promise<string> {
  const project = makeProject();
  made.push(project.dir);
  expect((await runCli(['capture', ...capture], { cwd: project.dir })).exitCode).toBe(0);
  expect((await runCli(['history', '--json'], { cwd: project.dir })).exitCode).toBe(0);
  const info = await runCli(['info'], { cwd: project.dir });
  expect(info.exitCode, info.stderr).toBe(0);
  return info.stdout;
}

/** The rows line and its continuations (paths elsewhere stay whole, to be copied). */
function rowLines(text: string): string[] {
  const from = text.split('\n').findIndex((l) => l.startsWith('rows '));
  expect(from).toBeGreaterThan(0);
  const after = text.split('\n').slice(from);
  const end = after.findIndex((l, i) => i > 0 && !l.startsWith(' '.repeat(16)));
  return end < 0 ? after.filter(Boolean) : after.slice(0, end);
}

describe('info as text', () => {
  it('says no ratio it cannot compute, for an archive of nothing', async () => {
    const text = await infoOf([]);
    expect(text).not.toContain('(-x)');
    expect(text).toMatch(/^size {12}0 B of artifacts in 0 B stored$/m);
    for (const line of rowLines(text)) expect(line.length, line).toBeLessThanOrEqual(80);
  });

  it.skipIf(!hasCorpus)('keeps every line within 80 columns off a terminal, each table listed once', async () => {
    const text = await infoOf(['--target-path', path.join(CORPUS_DIR, 'rembo-dbt-prod/target-seq/11_2025-06-11_7e907ff3')]);
    const lines = rowLines(text);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    const rows = lines.join(' ');
    const tables = [...rows.matchAll(/([a-z_]+) (\d+)/g)].map((m) => m[1]);
    expect(tables).toContain('run_result');
    expect(new Set(tables).size).toBe(tables.length);
  });
});
