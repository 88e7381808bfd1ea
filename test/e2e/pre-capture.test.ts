import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { makeProject, runCli } from '../helpers/cli.js';
import { syntheticManifest } from '../helpers/synthetic-artifacts.js';

/**
 * The shell wrapper runs `capture --phase pre` in front of every dbt command, so it does only
 * what reading the bytes needs: it archives them. Parsing and fingerprinting (ingest) wait for
 * the next read, so hostile SQL in a manifest can never hold dbt up.
 */
it('a pre capture archives without ingesting; the next read ingests', async () => {
  const { dir, target } = makeProject();
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const id = 'aaaaaaaa-2222-4333-8444-555555555555';
  writeFileSync(path.join(target, 'manifest.json'), syntheticManifest({ invocationId: id }));
  const pre = await runCli(['capture', '--phase', 'pre', '--quiet'], { cwd: dir });
  expect(pre.exitCode, pre.stderr).toBe(0);
  expect(existsSync(path.join(dir, '.dbtattic', 'archive', 'records', 'invocations', id))).toBe(true);
  expect(existsSync(path.join(dir, '.dbtattic', 'store.duckdb'))).toBe(false);
  const history = await runCli(['history', '--json'], { cwd: dir });
  expect(history.exitCode, history.stderr).toBe(0);
  expect(history.stdout).toContain(id);
});
