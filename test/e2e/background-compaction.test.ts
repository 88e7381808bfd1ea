import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compactionRunning } from '../../src/store/index.js';
import { makeProject, runCli } from '../helpers/cli.js';
import { addFreeBlocks } from '../helpers/store-waste.js';
import { writeSyntheticTarget } from '../helpers/synthetic-artifacts.js';

/**
 * A capture that leaves the store wasteful does not copy it in front of dbt (most of a minute
 * at 1,000 runs): it starts `dbtattic compact` detached and returns; the copy lands later.
 */
const FIRST = 'c0a1e5ce-0000-4000-8000-000000000001';
const SECOND = 'c0a1e5ce-0000-4000-8000-000000000002';

async function waitFor(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('compaction after a capture', () => {
  const project = makeProject();
  const storeFile = path.join(project.dir, '.dbtattic', 'store.duckdb');
  afterAll(() => rmSync(project.dir, { recursive: true, force: true }));

  it('runs in the background: the capture returns with the store as it ingested it, and the store is later copied compacted', async () => {
    writeSyntheticTarget({ invocationId: FIRST, generatedAt: '2026-02-01T10:00:00.000000Z' }, project.target);
    expect((await runCli(['capture'], { cwd: project.dir })).exitCode).toBe(0);
    await addFreeBlocks(storeFile);
    const wasteful = statSync(storeFile).size;
    expect((await runCli(['compact', '--json'], { cwd: project.dir })).stdout).toContain('"status": "compacted"');
    const compacted = statSync(storeFile).size;
    expect(compacted).toBeLessThan(wasteful / 4);
    expect(JSON.parse((await runCli(['compact', '--json'], { cwd: project.dir })).stdout)).toMatchObject({ status: 'not-needed', bytes: compacted });

    // Wasteful again, then a capture.
    await addFreeBlocks(storeFile);
    writeSyntheticTarget({ invocationId: SECOND, generatedAt: '2026-02-02T10:00:00.000000Z' }, project.target);
    const capture = await runCli(['capture'], { cwd: project.dir });
    expect(capture.exitCode).toBe(0);
    expect(capture.stderr).not.toContain('in use');
    await waitFor(() => !compactionRunning(storeFile) && statSync(storeFile).size < wasteful / 4, 60_000);
    const rows = (await runCli(['query', '--json', 'select invocation_id from invocation order by 1'], { cwd: project.dir })).stdout;
    expect(JSON.parse(rows)).toEqual([{ invocation_id: FIRST }, { invocation_id: SECOND }]);
    expect(existsSync(`${storeFile}.compacting`)).toBe(false);
    expect(readdirSync(path.dirname(storeFile)).filter((name) => name.startsWith('store.duckdb'))).toEqual(['store.duckdb']);
  });
});
