import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { archiveDirOf, listArchiveFiles } from '../helpers/archive-files.js';
import { makeProject, runCli } from '../helpers/cli.js';
import { syntheticManifest, syntheticRunResults } from '../helpers/synthetic-artifacts.js';

/** Every capture record of the project's archive, as one text to search. */
function captureRecordsText(dir: string): string {
  const captures = path.join(archiveDirOf(dir), 'records', 'captures');
  return listArchiveFiles(captures)
    .map((f) => readFileSync(path.join(captures, f), 'utf8'))
    .join('\n');
}

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

  const run = await runCli(
    ['run', '--', 'true', '--vars', '{"password": "hunter-argv"}', '--password', 'hunter-flag', 'DBT_PASSWORD=hunter-kv', '--select', 'a'],
    { cwd: dir },
  );
  expect(run.exitCode, run.stderr).toBe(0);
  const records = captureRecordsText(dir);
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

/**
 * Issue 42, item 10: credentials the name rule missed, found by their shape (vocab/secret-shapes.ts):
 * in run's argv, in vars and env, and in dbt's failure messages as the store, the report and the
 * PR summary hold them. Every secret below contains SECRET, so one search finds any that leaks.
 */
it('credentials by shape: argv, vars, env and failure messages are masked in the store, the report and the summary', async () => {
  const { dir, target } = makeProject();
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const id = 'eeeeeeee-3333-4333-8444-555555555555';
  const awsSecret = 'wJalrXUtnFEMI/K7MDENG/bPxSECRET1EXAMPLEK';
  const doc = JSON.parse(syntheticRunResults({ invocationId: id, command: 'build', statuses: ['error', 'error', 'success'] })) as {
    metadata: Record<string, unknown>;
    args: Record<string, unknown>;
    results: { message: string | null }[];
  };
  doc.metadata.env = { DBT_ENV_CUSTOM_ENV_WAREHOUSE: 'postgres://etl:SECRETpw1@db/prod', DBT_ENV_CUSTOM_ENV_AWS: 'AKIASECRET0EXAMPLE00' };
  doc.args.vars = { conn: 'Server=x;Password=SECRETpw2;', aws: awsSecret };
  doc.results[0]!.message = 'could not connect to postgres://etl:SECRETpw3@db:5432/prod: timeout';
  doc.results[1]!.message = 'HTTP 401 from catalog: Authorization: Bearer SECRETtoken4abcdef refused';
  writeFileSync(path.join(target, 'manifest.json'), syntheticManifest({ invocationId: id }));
  writeFileSync(path.join(target, 'run_results.json'), JSON.stringify(doc));

  const run = await runCli(
    [
      'run',
      '--',
      'true',
      'DATABASE_URL=postgres://u:SECRETpw5@h/db',
      'PGPASSWORD=SECRETpw6',
      '-p',
      'SECRETpw7',
      '-u',
      'admin:SECRETpw8',
      '--conn-str',
      'Server=x;Password=SECRETpw9;',
    ],
    { cwd: dir },
  );
  expect(run.exitCode, run.stderr).toBe(0);
  const records = captureRecordsText(dir);
  expect(records).toContain('DATABASE_URL=postgres://u:***@h/db');
  expect(records).not.toMatch(/SECRET/);

  const stored = await runCli(['query', 'select i.env, i.vars, c.run_argv, r.message from invocation i, capture c, run_result r', '--json'], { cwd: dir });
  expect(stored.exitCode, stored.stderr).toBe(0);
  expect(stored.stdout).toContain('postgres://etl:***@db:5432/prod: timeout');
  expect(stored.stdout).not.toMatch(/SECRET|AKIA/);
  const failed = await runCli(['history', '--failed'], { cwd: dir });
  expect(failed.stdout).toContain('Bearer ***');
  expect(failed.stdout).not.toMatch(/SECRET/);

  const summary = await runCli(['report', '--format', 'markdown', '--from', id, '--to', id], { cwd: dir });
  expect(summary.exitCode, summary.stderr).toBe(0);
  expect(summary.stdout).toContain('postgres://etl:***@db:5432/prod');
  expect(summary.stdout).not.toMatch(/SECRET/);
  const html = path.join(dir, 'report.html');
  expect((await runCli(['report', '--out', html], { cwd: dir })).exitCode).toBe(0);
  expect(readFileSync(html, 'utf8')).not.toMatch(/SECRET/);
});
