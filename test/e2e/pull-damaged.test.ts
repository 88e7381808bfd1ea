import { chmodSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { archiveDirOf } from '../helpers/archive-files.js';
import { makeProject, runCli } from '../helpers/cli.js';
import { writeSyntheticTarget } from '../helpers/synthetic-artifacts.js';

/**
 * `pull` from an archive with one damaged record (issue 42, item 7): it stopped with exit 4 and
 * the store pulled into held only FORMAT. Now the intact invocation arrives, the damaged one is
 * named, and the exit is 4 at the end.
 */
describe('pull from an archive with a damaged record', () => {
  const source = makeProject();
  const target = makeProject();
  afterAll(() => {
    rmSync(source.dir, { recursive: true, force: true });
    rmSync(target.dir, { recursive: true, force: true });
  });

  it('copies the intact invocation, names the damaged one, exits 4, and the store pulled into verifies', async () => {
    const [good, bad] = ['9011d000-0000-4000-8000-000000000001', '9011d000-0000-4000-8000-000000000002'];
    for (const [i, invocationId] of [good, bad].entries()) {
      writeSyntheticTarget({ invocationId, generatedAt: `2026-02-0${i + 1}T00:00:00.000000Z` }, source.target);
      expect((await runCli(['capture', '--quiet'], { cwd: source.dir })).exitCode).toBe(0);
    }
    const records = path.join(archiveDirOf(source.dir), 'records', 'invocations', bad);
    const damaged = path.join(records, readdirSync(records).find((f) => f.startsWith('run_results-'))!);
    chmodSync(damaged, 0o644);
    writeFileSync(damaged, '{"kind": "artif');

    const pulled = await runCli(['pull', path.join(source.dir, '.dbtattic')], { cwd: target.dir });
    expect(pulled.exitCode, pulled.stderr).toBe(4);
    expect(pulled.stderr).toContain(`damaged: invocation ${bad} was left out: Record records/invocations/${bad}/run_results-`);
    expect(pulled.stderr).toContain("everything else was copied; run 'dbtattic verify' on the store pulled from");

    // Read from the pulled archive's files, not from an answer of ours.
    expect(readdirSync(path.join(archiveDirOf(target.dir), 'records', 'invocations'))).toEqual([good]);
    expect((await runCli(['verify'], { cwd: target.dir })).exitCode).toBe(0);
  });
});
