import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeProject, runCli } from '../helpers/cli.js';
import { CORPUS_DIR, hasCorpus } from '../helpers/corpus.js';

/**
 * Issue 44 item 12, on a real history (rembo-dbt-prod, runs of May and June 2025): `--since 7d`,
 * `--since yesterday` and `prune --grace 0s` were refused. Expected runs are read from the JSON.
 */
const SEQ = path.join(CORPUS_DIR, 'rembo-dbt-prod/target-seq');
const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe.skipIf(!hasCorpus)('times back from now, on a real history', () => {
  let dir: string;
  const results = (): { id: string; generatedAt: string }[] =>
    readdirSync(SEQ).flatMap((run) => {
      try {
        const json = JSON.parse(readFileSync(path.join(SEQ, run, 'run_results.json'), 'utf8')) as { metadata: { invocation_id: string; generated_at: string } };
        return [{ id: json.metadata.invocation_id, generatedAt: json.metadata.generated_at }];
      } catch {
        return [];
      }
    });
  beforeAll(async () => {
    dir = makeProject().dir;
    made.push(dir);
    for (const run of readdirSync(SEQ).sort()) expect((await runCli(['capture', '--target-path', path.join(SEQ, run)], { cwd: dir })).exitCode).toBe(0);
  }, 120_000);

  it('--since a span back from now takes in the runs of that span, and none of a year and more ago', async () => {
    const daysBack = Math.ceil((Date.now() - Date.parse('2025-01-01T00:00:00Z')) / 86_400_000);
    const all = JSON.parse((await runCli(['history', '--since', `${daysBack}d`, '--limit', '1000', '--json'], { cwd: dir })).stdout) as {
      invocation_id: string;
    }[];
    const ids = new Set(all.map((r) => r.invocation_id));
    for (const r of results()) expect(ids.has(r.id), r.id).toBe(true);
    for (const since of ['7d', '2w ago', 'yesterday', 'today']) {
      const recent = await runCli(['history', '--since', since, '--json'], { cwd: dir });
      expect(recent.exitCode, `${since}: ${recent.stderr}`).toBe(0);
      expect(JSON.parse(recent.stdout), since).toEqual([]);
    }
  });

  it('prune --grace 0s is no grace at all, as 0 is', async () => {
    const seconds = await runCli(['prune', '--grace', '0s', '--dry-run', '--json'], { cwd: dir });
    const zero = await runCli(['prune', '--grace', '0', '--dry-run', '--json'], { cwd: dir });
    expect(seconds.exitCode, seconds.stderr).toBe(0);
    expect(JSON.parse(seconds.stdout)).toEqual(JSON.parse(zero.stdout));
  });
});
