import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveDirOf, listArtifactRecordFiles, sha256Of } from '../helpers/archive-files.js';
import { onlyOutput, readOutputRecordFiles, restoreBlob } from '../helpers/archive-outputs.js';
import { BIN } from '../helpers/cli.js';
import { dbtattic } from '../helpers/dbt-history.js';
import { dbtEnv, duckshopAt, hasRealDbt, NO_DBT_REASON } from '../helpers/real-dbt.js';
import { startWatched } from '../helpers/watched-process.js';

/**
 * A real dbt interrupted under `dbtattic run`, as a user at a terminal and a CI runner do it
 * (issue 43): Ctrl-C typed at a pseudo-terminal; SIGINT and SIGTERM sent to dbtattic alone (no
 * terminal), and to its whole process group (a runner cancelling a job). dbt must get exactly
 * one interrupt each time, at once: after one SIGINT dbt cancels its query, says "Exited because
 * of keyboard interrupt" and writes a run_results.json without results; a second one kills that
 * clean-up ("During handling of the above exception, another exception occurred"). SIGTERM kills
 * dbt 1.12 outright (no handler, no run_results). The wrapper exits 130 or 143, the
 * interrupted run's artifacts are filed, and it is no success for `state --last-success`.
 */
const SLOW = "{{ config(materialized='table') }}\nselect sum(a.range * b.range) as s from range(300000) a, range(300000) b\n";
const STARTED = 'START sql table model main.slow_query';
/**
 * dbt prints START before its thread sends the query: an interrupt in between cancels nothing,
 * and dbt then waits for the query to end (dbt 1.12's own race, seen here). So the signal comes
 * a moment after START, with the query at work.
 */
const QUERY_AT_WORK_MS = 1_500;
const TERMINAL = path.join(path.dirname(fileURLToPath(import.meta.url)), '../helpers/terminal.py');

if (!hasRealDbt) console.warn(`real-dbt-signals: skipped, ${NO_DBT_REASON}`);

describe.skipIf(!hasRealDbt)('a real dbt interrupted under dbtattic run', () => {
  let dir: string;
  let project: string;
  let success: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'attic-signals-'));
    project = duckshopAt(path.join(dir, 'project'));
    writeFileSync(path.join(project, 'models', 'slow_query.sql'), SLOW);
    // One success before the interrupted runs, which state --last-success must keep choosing.
    expect((await dbtattic(project, ['run', '--', 'dbt', 'run', '--select', 'stg_customers'])).exitCode).toBe(0);
    success = (JSON.parse(readFileSync(path.join(project, 'target', 'run_results.json'), 'utf8')) as { metadata: { invocation_id: string } }).metadata
      .invocation_id;
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** After an interrupted run: what it filed, checked against target/ and logs/ as dbt left them. */
  async function interruptedRun(expectedExit: number): Promise<{ invocation: string; log: string }> {
    const manifest = JSON.parse(readFileSync(path.join(project, 'target', 'manifest.json'), 'utf8')) as { metadata: { invocation_id: string } };
    const invocation = manifest.metadata.invocation_id;
    expect(invocation).not.toBe(success);
    const records = listArtifactRecordFiles(archiveDirOf(project)).filter((r) => r.invocation === invocation);
    expect(records.find((r) => r.artifact === 'manifest')?.sha256).toBe(sha256Of(path.join(project, 'target', 'manifest.json')));
    const log = restoreBlob(archiveDirOf(project), onlyOutput(readOutputRecordFiles(archiveDirOf(project), invocation), 'log').sha256).toString('utf8');
    const state = await dbtattic(project, ['state', '--last-success', '--json']);
    expect(state.exitCode, state.stderr).toBe(0);
    expect(JSON.parse(state.stdout)).toMatchObject({ invocation_id: success });
    const history = JSON.parse((await dbtattic(project, ['history', '--json', '--limit', '1'])).stdout) as {
      invocation_id: string;
      run_exit_code: number | null;
    }[];
    expect(history[0]).toMatchObject({ invocation_id: invocation, run_exit_code: expectedExit });
    return { invocation, log };
  }

  /** One SIGINT reached dbt: its clean-up ran to the end, wrote results (none) and said so once. */
  function oneSigint(invocation: string, log: string): void {
    const results = JSON.parse(readFileSync(path.join(project, 'target', 'run_results.json'), 'utf8')) as {
      metadata: { invocation_id: string };
      results: unknown[];
    };
    expect(results).toMatchObject({ metadata: { invocation_id: invocation }, results: [] });
    const filed = listArtifactRecordFiles(archiveDirOf(project)).find((r) => r.invocation === invocation && r.artifact === 'run_results');
    expect(filed?.sha256).toBe(sha256Of(path.join(project, 'target', 'run_results.json')));
    expect(log.split('Exited because of keyboard interrupt').length - 1).toBe(1);
    expect(log).not.toContain('another exception occurred');
  }

  const CASES: { name: string; signal: NodeJS.Signals; group: boolean; exit: number }[] = [
    { name: 'SIGINT to dbtattic alone', signal: 'SIGINT', group: false, exit: 130 },
    { name: 'SIGINT to its process group', signal: 'SIGINT', group: true, exit: 130 },
    { name: 'SIGTERM to dbtattic alone', signal: 'SIGTERM', group: false, exit: 143 },
    { name: 'SIGTERM to its process group', signal: 'SIGTERM', group: true, exit: 143 },
  ];

  it.each(CASES)(
    '$name, no terminal: dbt gets it once and at once, the run exits $exit and is filed as no success',
    async ({ signal, group, exit }) => {
      // Its own process group, as a CI job's shell is, so the test can signal the group; dbt's
      // output unbuffered on a pipe, so the test sees the query start when dbt prints it.
      const watched = startWatched(process.execPath, [BIN, 'run', '--', 'dbt', 'run', '--select', 'slow_query'], {
        cwd: project,
        env: { ...process.env, ...dbtEnv(project), NO_COLOR: '1', PYTHONUNBUFFERED: '1' },
        detached: true,
      });
      try {
        await watched.waitForOutput(STARTED);
        await new Promise((resolve) => setTimeout(resolve, QUERY_AT_WORK_MS));
        const sentAt = Date.now();
        process.kill(group ? -watched.child.pid! : watched.child.pid!, signal);
        const end = await watched.ended;
        expect(end.code, `${end.stdout}\n${end.stderr}`).toBe(exit);
        // At once: dbt's own clean-up and our capture, never a grace period of seconds on top.
        expect(Date.now() - sentAt).toBeLessThan(8_000);
        const { invocation, log } = await interruptedRun(exit);
        if (signal === 'SIGINT') oneSigint(invocation, log);
      } finally {
        if (watched.child.exitCode === null && watched.child.signalCode === null) {
          // dbtattic passes a SIGTERM on to dbt, in a group of its own, and its exit takes dbt with it.
          watched.child.kill('SIGTERM');
          await watched.ended;
        }
      }
    },
    90_000,
  );

  it('Ctrl-C typed at a terminal: dbt, in the foreground with dbtattic, gets that one SIGINT and no second', async () => {
    const run = await new Promise<{ exit_code: number; interrupted: boolean; output: string }>((resolve, reject) => {
      execFile(
        'python3',
        [
          TERMINAL,
          JSON.stringify([process.execPath, BIN, 'run', '--', 'dbt', 'run', '--select', 'slow_query']),
          project,
          STARTED,
          String(QUERY_AT_WORK_MS / 1000),
        ],
        { env: { ...process.env, ...dbtEnv(project) }, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) => {
          if (error) reject(new Error(`terminal.py failed: ${error.message}\n${stderr}`));
          else resolve(JSON.parse(stdout) as { exit_code: number; interrupted: boolean; output: string });
        },
      );
    });
    expect(run.interrupted).toBe(true);
    expect(run.exit_code, run.output).toBe(130);
    const { invocation, log } = await interruptedRun(130);
    oneSigint(invocation, log);
  }, 90_000);
});
