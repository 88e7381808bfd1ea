import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metadataOf, readJson } from '../helpers/artifact-facts.js';
import { browserAvailable, openReport } from '../helpers/browser.js';
import { makeProject, runCli, runCliOnTerminal } from '../helpers/cli.js';
import { CORPUS_DIR, hasCorpus } from '../helpers/corpus.js';
import { readPrintedTable } from '../helpers/printed-table.js';

/**
 * One run, one time: history, inspect and the report give a run the time it started (dbt's
 * invocation_started_at, else its run results' generated_at less their elapsed_time), to the
 * minute, in UTC written with a Z. brooklyn's Snowflake sequence has runs of about two minutes,
 * so their start and end fall in different minutes; expectations come from run_results.json.
 */
const SEQUENCE = path.join(CORPUS_DIR, 'brooklyn-dbt-artifacts/integration-seq-snowflake-1.0');

interface Run {
  id: string;
  startMs: number;
  endMs: number;
}

const runs: Run[] = hasCorpus
  ? readdirSync(SEQUENCE)
      .sort()
      .map((name) => path.join(SEQUENCE, name, 'run_results.json'))
      .filter(existsSync)
      .map((file) => {
        const results = readJson(file);
        const meta = metadataOf(results) as { invocation_id?: string; generated_at?: string; invocation_started_at?: string };
        const endMs = Date.parse(String(meta.generated_at));
        const started = meta.invocation_started_at ? Date.parse(meta.invocation_started_at) : endMs - Number(results.elapsed_time) * 1000;
        return { id: String(meta.invocation_id), startMs: started, endMs };
      })
  : [];
/** To the minute, UTC, with a Z: how every front end prints a time. */
const minute = (ms: number): string => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')}Z`;

let project = '';
beforeAll(async () => {
  if (!hasCorpus) return;
  project = makeProject().dir;
  for (const name of readdirSync(SEQUENCE).sort()) {
    expect(await runCli(['--target-path', path.join(SEQUENCE, name), 'capture', '--quiet'], { cwd: project }), name).toMatchObject({ exitCode: 0 });
  }
}, 120_000);
afterAll(() => project && rmSync(project, { recursive: true, force: true }));

describe.skipIf(!hasCorpus)('a run has one time, its start, shown the same way everywhere (brooklyn on Snowflake)', () => {
  it('the sample tells start from end: four of its seven runs end in another minute than they start', () => {
    expect(runs.length).toBe(7);
    expect(runs.filter((r) => minute(r.startMs) !== minute(r.endMs)).length).toBeGreaterThanOrEqual(4);
  });

  it("history --json's at is the start", async () => {
    const listed = JSON.parse((await runCli(['history', '--json'], { cwd: project })).stdout) as { invocation_id: string; at: string }[];
    for (const run of runs) {
      const row = listed.find((r) => r.invocation_id === run.id);
      expect(Math.abs(Date.parse(row!.at) - run.startMs), run.id).toBeLessThanOrEqual(1);
    }
  });

  it('history and inspect print it under "started", to the minute, with a Z', async () => {
    const shown = await runCliOnTerminal(['history'], { cwd: project, columns: 200 });
    const rows = readPrintedTable(shown.stdout, ['started', 'invocation', 'command', 'target', 'results', 'took', 'exit', 'git', 'branch'], 'invocation');
    for (const run of runs) {
      expect(rows.find((r) => run.id.startsWith(r.invocation!))?.started, run.id).toBe(minute(run.startMs));
      const inspected = await runCliOnTerminal(['inspect', run.id], { cwd: project, columns: 200 });
      expect(inspected.stdout).toMatch(new RegExp(`^started {5}${minute(run.startMs)}, finished ${minute(run.endMs)} `, 'm'));
    }
  });

  it.skipIf(!browserAvailable)(
    "the report's runs page shows the same, under the same label",
    async () => {
      const file = path.join(project, 'report.html');
      expect(await runCli(['report', '--out', file], { cwd: project })).toMatchObject({ exitCode: 0 });
      const report = await openReport(file);
      try {
        await report.show('runs');
        const table = (await report.page.evaluate(
          `[...document.querySelectorAll('[data-table="runs"] tr')].map((tr) => [...tr.children].map((cell) => cell.textContent))`,
        )) as string[][];
        expect(table[0]![0]).toBe('started');
        for (const run of runs) expect(table.find((cells) => run.id.startsWith(cells[1]!))?.[0], run.id).toBe(minute(run.startMs));
      } finally {
        await report.browser.close();
      }
    },
    60_000,
  );
});
