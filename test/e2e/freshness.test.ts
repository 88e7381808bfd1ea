import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateSequence } from '../../fixtures/generate.mjs';
import { makeProject, runCli } from '../helpers/cli.js';

/**
 * dbt v2's freshness.json (schema freshness/v0: sources and models), made from the synthetic
 * fixture's sources.json the way the published schema describes it: results gain resource_type,
 * statuses are capitalised, and a model with a freshness config is checked too.
 */
function freshnessJson(sourcesJson: string): { text: string; results: { unique_id: string; status: string; max_loaded_at_time_ago_in_s: number }[] } {
  const doc = JSON.parse(sourcesJson) as { metadata: Record<string, unknown>; results: Record<string, unknown>[] };
  const capital = (s: unknown): string => String(s).charAt(0).toUpperCase() + String(s).slice(1);
  const sources = doc.results.filter((r) => r.status !== 'runtime error').map((r) => ({ ...r, resource_type: 'source', status: capital(r.status) }));
  const model = { ...sources[0]!, unique_id: 'model.attic_shop.orders', resource_type: 'model', status: 'Pass', max_loaded_at_time_ago_in_s: 60 };
  const results = [...sources, model] as unknown as { unique_id: string; status: string; max_loaded_at_time_ago_in_s: number }[];
  const metadata = { ...doc.metadata, dbt_schema_version: 'https://schemas.getdbt.com/dbt/freshness/v0.json', dbt_version: '2.0.0-synthetic' };
  return { text: JSON.stringify({ metadata, results, elapsed_time: 1.5 }), results };
}

describe('source freshness in history', () => {
  const history = mkdtempSync(path.join(os.tmpdir(), 'attic-freshness-'));
  afterAll(() => rmSync(history, { recursive: true, force: true }));

  it('lists the sources a freshness run found stale or broken as its failures (history --failed)', async () => {
    const step = generateSequence(history).find((s) => s.slug === 'source-freshness')!;
    const sources = readFileSync(path.join(history, step.dir, 'target', 'sources.json'), 'utf8');
    const failing = (JSON.parse(sources) as { results: { unique_id: string; status: string }[] }).results.filter(
      (r) => r.status === 'error' || r.status === 'runtime error',
    );
    expect(failing.length).toBeGreaterThan(0);
    const project = makeProject();
    writeFileSync(path.join(project.target, 'sources.json'), sources);
    expect((await runCli(['capture'], { cwd: project.dir })).exitCode).toBe(0);
    const rows = JSON.parse((await runCli(['history', '--failed', '--json'], { cwd: project.dir })).stdout) as {
      invocation_id: string;
      failures: { unique_id: string; status: string }[];
    }[];
    expect(rows.map((r) => [r.invocation_id, r.failures.map((f) => `${f.unique_id} ${f.status}`)])).toEqual([
      [step.invocation_id, failing.map((f) => `${f.unique_id} ${f.status}`).sort()],
    ]);
  });
});

describe('dbt v2 freshness.json', () => {
  const history = mkdtempSync(path.join(os.tmpdir(), 'attic-freshness-'));
  afterAll(() => rmSync(history, { recursive: true, force: true }));

  it('is captured and its sources and models land in the freshness history', async () => {
    const step = generateSequence(history).find((s) => s.slug === 'source-freshness')!;
    const { text, results } = freshnessJson(readFileSync(path.join(history, step.dir, 'target', 'sources.json'), 'utf8'));
    const project = makeProject();
    writeFileSync(path.join(project.target, 'freshness.json'), text);
    const captured = await runCli(['capture', '--json'], { cwd: project.dir });
    expect(captured.exitCode, captured.stderr).toBe(0);
    const rows = await runCli(
      ['query', '--json', `SELECT unique_id, status, age_s FROM source_freshness WHERE invocation_id = '${step.invocation_id}' ORDER BY unique_id`],
      { cwd: project.dir },
    );
    expect(JSON.parse(rows.stdout)).toEqual(
      results
        .map((r) => ({ unique_id: r.unique_id, status: r.status.toLowerCase(), age_s: r.max_loaded_at_time_ago_in_s }))
        .sort((a, b) => a.unique_id.localeCompare(b.unique_id)),
    );
    const invocation = await runCli(['query', '--json', `SELECT command FROM invocation WHERE invocation_id = '${step.invocation_id}'`], { cwd: project.dir });
    expect(JSON.parse(invocation.stdout)).toEqual([{ command: 'freshness' }]);
  });
});
