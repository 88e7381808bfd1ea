import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { archiveDirOf, listArtifactRecordFiles } from '../helpers/archive-files.js';
import { makeProject, runCli } from '../helpers/cli.js';
import { writeSyntheticTarget } from '../helpers/synthetic-artifacts.js';
import { storedInvocations } from '../helpers/store-dump.js';
import { holdStore } from '../helpers/store-holder.js';
import type { WatchedProcess } from '../helpers/watched-process.js';

/**
 * DuckDB lets one process hold a database file for writing and refuses every other process. A
 * capture must not fail or wait because of that (the archive is the source of truth; the store
 * catches up later); a reading command waits a bounded time, then says the store is in use.
 */
const FIRST = '0b5e55ed-0000-4000-8000-000000000001';
const SECOND = '0b5e55ed-0000-4000-8000-000000000002';

describe('a store held by another process', () => {
  const project = makeProject();
  const storeFile = path.join(project.dir, '.dbtattic', 'store.duckdb');
  let holder: WatchedProcess | undefined;
  afterAll(async () => {
    holder?.child.kill();
    await holder?.ended;
    rmSync(project.dir, { recursive: true, force: true });
  });

  it('does not stop capture; reads wait, then fail clearly; the next read catches up', async () => {
    writeSyntheticTarget({ invocationId: FIRST, generatedAt: '2026-02-01T10:00:00.000000Z' }, project.target);
    expect((await runCli(['capture'], { cwd: project.dir })).exitCode).toBe(0);
    expect(await storedInvocations(storeFile)).toEqual([FIRST]);

    holder = await holdStore(storeFile);

    writeSyntheticTarget({ invocationId: SECOND, statuses: ['success', 'error'], generatedAt: '2026-02-02T10:00:00.000000Z' }, project.target);
    const capture = await runCli(['capture'], { cwd: project.dir });
    expect(capture.exitCode).toBe(0);
    expect(capture.stderr).toContain('the store is in use by another process; it catches up on the next read');
    expect(holder.child.exitCode).toBeNull(); // capture finished while the store was still held
    const records = listArtifactRecordFiles(archiveDirOf(project.dir)).filter((r) => r.invocation === SECOND);
    expect(records.map((r) => r.artifact).sort()).toEqual(['manifest', 'run_results']);

    const history = await runCli(['history'], { cwd: project.dir });
    expect(history.exitCode, history.stderr).toBe(5);
    expect(history.stderr).toMatch(/^error: The store .*store\.duckdb is in use by another process \(PID \d+\)\. Try again when it finishes\.\n$/);
    expect(history.stdout).toBe('');

    holder.child.kill();
    await holder.ended;
    expect(await storedInvocations(storeFile)).toEqual([FIRST]);
    const after = await runCli(['history', '--json'], { cwd: project.dir });
    expect(after.exitCode).toBe(0);
    expect((JSON.parse(after.stdout) as { invocation_id: string; outcome: string }[]).map((r) => [r.invocation_id, r.outcome])).toEqual([
      [SECOND, 'failed'],
      [FIRST, 'ok'],
    ]);
  }, 60_000);
});
