import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { archiveDirOf, listArchiveFiles } from '../helpers/archive-files.js';
import { makeProject, runCli } from '../helpers/cli.js';
import { syntheticManifest, syntheticRunResults } from '../helpers/synthetic-artifacts.js';

/** What dbtattic itself writes (capture records, the store) keeps no credential it was handed. */
it("run's argv, dbt's invocation_command and credential-named metadata.env keys are stored redacted", async () => {
  const { dir, target } = makeProject();
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const id = 'eeeeeeee-2222-4333-8444-555555555555';
  const withEnv = (text: string): string => {
    const doc = JSON.parse(text) as { metadata: Record<string, unknown>; args?: Record<string, unknown> };
    doc.metadata.env = { GIT_SHA: 'abc1234', DBT_PASSWORD: 'hunter-env' };
    if (doc.args) doc.args.invocation_command = `dbt build --vars '{"db_password": "hunter-cmd"}' --select a`;
    if (doc.args) doc.args.vars = { db_password: 'hunter-vars', region: 'eu' };
    return JSON.stringify(doc);
  };
  writeFileSync(path.join(target, 'manifest.json'), withEnv(syntheticManifest({ invocationId: id })));
  writeFileSync(path.join(target, 'run_results.json'), withEnv(syntheticRunResults({ invocationId: id })));

  const run = await runCli(['run', '--', 'true', '--vars', '{"password": "hunter-argv"}', '--password', 'hunter-flag', 'DBT_PASSWORD=hunter-kv', '--select', 'a'], { cwd: dir });
  expect(run.exitCode, run.stderr).toBe(0);
  const records = listArchiveFiles(path.join(archiveDirOf(dir), 'records', 'captures')).map((f) => readFileSync(path.join(archiveDirOf(dir), 'records', 'captures', f), 'utf8')).join('\n');
  expect(records).toContain('"--select"');
  expect(records).not.toMatch(/hunter/);

  const stored = await runCli(['query', 'select env, vars, invocation_command, args from invocation', '--json'], { cwd: dir });
  expect(stored.exitCode, stored.stderr).toBe(0);
  const argv = await runCli(['query', 'select run_argv from capture', '--json'], { cwd: dir });
  expect(argv.stdout).toContain('--select');
  expect(argv.stdout).not.toMatch(/hunter/);
  expect(stored.stdout).toContain('abc1234');
  expect(stored.stdout).toContain('eu');
  expect(stored.stdout).not.toMatch(/hunter/);
  const inspect = await runCli(['inspect', id.slice(0, 8), '--json'], { cwd: dir });
  expect(inspect.stdout).not.toMatch(/hunter/);
});
