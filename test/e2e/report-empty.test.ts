import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeProject, runCli } from '../helpers/cli.js';
import { CORPUS_DIR, hasCorpus } from '../helpers/corpus.js';

/** Issue 44 item 12: `report` on an archive without invocations wrote an empty page and exited 0. */
const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('report with no invocation to show', () => {
  it('exits 3 and writes nothing for an archive that holds no invocation', async () => {
    const project = makeProject();
    made.push(project.dir);
    expect((await runCli(['capture'], { cwd: project.dir })).exitCode).toBe(0);
    const result = await runCli(['report'], { cwd: project.dir });
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toMatch(/^error: No invocation to report on \(every run\): nothing is written\./);
    expect(existsSync(path.join(project.dir, 'report.html'))).toBe(false);
  });

  it.skipIf(!hasCorpus)('leaves an earlier report as it was when --since matches none of a real history', async () => {
    const project = makeProject();
    made.push(project.dir);
    const run = path.join(CORPUS_DIR, 'rembo-dbt-prod/target-seq/11_2025-06-11_7e907ff3');
    expect((await runCli(['capture', '--target-path', run], { cwd: project.dir })).exitCode).toBe(0);
    const generatedAt = (JSON.parse(readFileSync(path.join(run, 'run_results.json'), 'utf8')) as { metadata: { generated_at: string } }).metadata.generated_at;
    const after = new Date(Date.parse(generatedAt) + 86_400_000).toISOString();
    writeFileSync(path.join(project.dir, 'report.html'), 'the report of last week');
    const result = await runCli(['report', '--since', after], { cwd: project.dir });
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toContain(`since ${after}`);
    expect(readFileSync(path.join(project.dir, 'report.html'), 'utf8')).toBe('the report of last week');
  });
});
