import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countStatuses, resultStatuses, type Json } from '../helpers/artifact-facts.js';
import { announceBrowserSkip, browserAvailable, openReport, rendered, type OpenReport } from '../helpers/browser.js';
import { REPO_DIR } from '../helpers/cli.js';
import { replayedHistory, type ReplayedHistory } from '../helpers/replay.js';
import { writeHtmlReport, type HtmlReportResult, type ReportData } from '../../src/report/index.js';
import { shellSize } from '../../src/report/html.js';
import { openDatabase } from '../../src/store/index.js';

/**
 * `dbtattic report` of the fixture history (fixtures/README.md), rendered by a real headless
 * Chromium: no console errors, no request but the file, every page reachable by its hash, every
 * chart drawn, and the numbers shown equal `dbtattic query` and the artifacts. Screenshots of
 * each page are written to SCREENSHOTS for a person to look at.
 */
const SCREENSHOTS = path.join(REPO_DIR, 'test-output', 'report-pages');
const FAILED = ['error', 'fail', 'runtime error', 'partial success'];
announceBrowserSkip('test/e2e/report.test.ts (the HTML report in a browser)');

let replay: ReplayedHistory;
let file: string;
let browser: OpenReport | undefined;

beforeAll(async () => {
  replay = await replayedHistory();
  file = path.join(replay.workDir, 'out', 'report.html');
  const written = await replay.cli(['report', '--out', file]);
  if (written.exitCode !== 0) throw new Error(`report exited ${written.exitCode}: ${written.stderr}`);
  rmSync(SCREENSHOTS, { recursive: true, force: true });
  mkdirSync(SCREENSHOTS, { recursive: true });
  if (browserAvailable) browser = await openReport(file);
}, 180_000);
afterAll(async () => {
  await browser?.browser.close();
  replay?.remove();
});

const idOf = (n: number): string => replay.step(n).invocation_id;
const queryOne = async (sql: string): Promise<Record<string, unknown>> => (await replay.json<Record<string, unknown>[]>(['query', '--json', sql]))[0]!;
const runResults = (n: number): Json | null => replay.artifactOf(replay.step(n), 'run_results.json');

describe('report: the file', () => {
  it('is one file that loads nothing: no src or href leaves it, and a policy forbids every fetch', async () => {
    const html = readFileSync(file, 'utf8');
    expect(html).toContain("default-src 'none'");
    expect(html.match(/\s(src|href)="(?!#)[^"]*"/g) ?? []).toEqual([]);
    expect(html).toContain('uPlot');
  });
});

describe.skipIf(!browserAvailable)('report: in Chromium', () => {
  const page = (): OpenReport => browser!;
  const tile = async (name: string): Promise<string | null> => page().page.getAttribute(`[data-tile="${name}"]`, 'data-value');
  const chartsDrawn = async (): Promise<{ charts: number; drawn: number }> =>
    page().page.evaluate(`({ charts: document.querySelectorAll('.chart').length, drawn: document.querySelectorAll('.chart[data-drawn="true"]').length })`);

  const PAGES: [string, () => string, number][] = [
    ['overview', () => 'overview', 2],
    ['runs', () => 'runs', 0],
    ['run-failed-test', () => `run/${idOf(5)}`, 1],
    ['run-macro-change', () => `run/${idOf(10)}`, 1],
    ['models', () => 'models', 0],
    ['model-customers', () => 'model/model.attic_shop.customers', 1],
    ['test-status-group', () => 'model/test.attic_shop.not_null_orders_status_group.98665510ab', 1],
    ['tests', () => 'tests', 0],
    ['sources', () => 'sources', 3],
  ];

  it.each(PAGES)('page %s is reachable by its hash and draws each of its charts', async (name, hash, charts) => {
    await page().show(hash());
    expect(await page().page.textContent('h1')).not.toBe('Not found');
    expect(await chartsDrawn()).toEqual({ charts, drawn: charts });
    await page().page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
  });

  it('the Overview counts runs and failed results as dbtattic query does, and as the artifacts say', async () => {
    await page().show('overview');
    const runs = (await queryOne('SELECT count(*) AS n FROM invocation')).n;
    const failed = (await queryOne(`SELECT count(*) AS n FROM run_result WHERE status IN ('error', 'fail', 'runtime error', 'partial success')`)).n;
    expect(Number(await tile('runs'))).toBe(runs);
    expect(Number(await tile('failures'))).toBe(failed);
    // From the artifacts: one invocation per step, and the failed results their run_results hold.
    expect(runs).toBe(replay.steps.length);
    const fromArtifacts = replay.steps.reduce((sum, s) => {
      const counts = countStatuses(resultStatuses(runResults(s.step) ?? { results: [] }));
      return sum + FAILED.reduce((n, status) => n + (counts[status] ?? 0), 0);
    }, 0);
    expect(failed).toBe(fromArtifacts);
  });

  it("a model's median and p95 are v_node_runtime's", async () => {
    await page().show('model/model.attic_shop.customers');
    const row = await queryOne("SELECT median_s, p95_s, runs FROM v_node_runtime WHERE unique_id = 'model.attic_shop.customers'");
    expect(Number(await tile('p50'))).toBeCloseTo(Number(row.median_s), 9);
    expect(Number(await tile('p95'))).toBeCloseTo(Number(row.p95_s), 9);
    expect(Number(await tile('node-runs'))).toBe(row.runs);
  });

  it("a run's page lists the results its run_results.json says failed or were skipped, and its diff", async () => {
    await page().show(`run/${idOf(10)}`);
    const listed = await page().page.$$eval('[data-table="problems"] tbody tr td:first-child a', (links) => links.map((a) => a.getAttribute('title')));
    const statuses = resultStatuses(runResults(10)!);
    const expected = [...statuses]
      .filter(([, s]) => FAILED.includes(s) || s === 'skipped' || s === 'warn')
      .map(([id]) => id)
      .sort();
    expect(listed.sort()).toEqual(expected);
    const diff = await replay.json<{ node_counts: Record<string, number> }>(['diff', idOf(9), idOf(10), '--json']);
    const shown = await page().page.$$eval('[data-diff] [data-kind]', (badges) =>
      Object.fromEntries(badges.map((b) => [b.getAttribute('data-kind'), Number(b.getAttribute('data-count'))])),
    );
    expect(shown).toEqual(diff.node_counts);
  });

  it('a test that failed once shows when its failures began, with that run and git sha', async () => {
    await page().show('tests');
    const row = page().page.locator('[data-table="tests"] tr', { hasText: 'not_null_orders_status_group' });
    expect(await row.locator('a.mono').first().getAttribute('href')).toBe(`#run/${idOf(5)}`);
    expect(await row.textContent()).toContain(replay.shaAfter.get(5)!.slice(0, 7));
  });

  it('search finds a node by name and opens its page', async () => {
    await page().show('overview');
    await page().page.fill('#search', 'order_tot');
    await page().page.click('#search-results a[href="#model/model.attic_shop.order_totals"]');
    await rendered(page().page, 'model/model.attic_shop.order_totals');
  });

  it('made no request and logged no error on any page', async () => {
    expect(page().requests).toEqual([]);
    expect(page().errors).toEqual([]);
  });
});

/** The data a report embeds, decoded as the page decodes it. */
function embeddedData(html: string): ReportData {
  const base64 = /<script id="report-data"[^>]*>([^<]*)<\/script>/.exec(html)![1]!;
  return JSON.parse(gunzipSync(Buffer.from(base64, 'base64')).toString('utf8')) as ReportData;
}

describe('report --last N', () => {
  it('counts each test over those runs only, as the run results of the runs that build say', async () => {
    const out = path.join(replay.workDir, 'out', 'last3.html');
    expect((await replay.cli(['report', '--last', '3', '--out', out])).exitCode).toBe(0);
    const data = embeddedData(readFileSync(out, 'utf8'));
    const inScope = new Set(data.runs.map((r) => r.id));
    expect(inScope.size).toBe(3);
    const expected = new Map<string, Record<string, number>>();
    for (const step of replay.steps.filter((s) => inScope.has(s.invocation_id) && commandBuilds(s.command))) {
      for (const [id, status] of resultStatuses(runResults(step.step) ?? { results: [] })) {
        if (!id.startsWith('test.')) continue;
        const counts = expected.get(id) ?? { passes: 0, fails: 0, warns: 0 };
        if (status === 'pass') counts.passes!++;
        if (status === 'fail') counts.fails!++;
        if (status === 'warn') counts.warns!++;
        expected.set(id, counts);
      }
    }
    expect(expected.size).toBeGreaterThan(0);
    const shown = new Map(data.tests.map((t) => [data.nodes[t.node]!.id, { passes: t.passes, fails: t.fails, warns: t.warns }]));
    expect(shown).toEqual(expected);
  });
});

/** What the store counts as building (src/vocab/commands.ts), read from the step's own command line. */
function commandBuilds(command: string): boolean {
  return !/^dbt (compile|docs|show|clone|parse|list|ls|source)\b/.test(command);
}

describe('report: the size budget', () => {
  const small = async (name: string, dataBytes: number): Promise<{ data: ReportData; written: HtmlReportResult; limitBytes: number }> => {
    const db = await openDatabase(path.join(replay.project, '.dbtattic', 'store.duckdb'), 'read');
    const out = path.join(replay.workDir, 'out', name);
    const limitBytes = shellSize() + dataBytes;
    const written = await writeHtmlReport(db, { out, scope: {}, scopeText: 'every run', toolVersion: 'test', now: new Date(), limitBytes }).finally(() =>
      db.close(),
    );
    return { data: embeddedData(readFileSync(out, 'utf8')), written, limitBytes };
  };

  it('within it, every run is its own point and has its page', async () => {
    const full = embeddedData(readFileSync(file, 'utf8'));
    expect(full.meta.budget.note).toBeNull();
    expect(Object.keys(full.details)).toHaveLength(replay.steps.length);
    expect(full.points.every((p) => p.runs === 1)).toBe(true);
  });

  it('past it, older runs lose their pages, newest kept first, and the report says so', async () => {
    const { data, written, limitBytes } = await small('pages.html', 9000);
    const kept = Object.keys(data.details);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(replay.steps.length);
    expect(kept).toEqual(
      data.runs
        .slice(data.runs.length - kept.length)
        .map((r) => r.id)
        .reverse(),
    );
    expect(data.meta.budget.note).toMatch(/newest runs have full pages/);
    expect(written.bytes).toBeLessThanOrEqual(limitBytes);
  });

  it('further past it, the oldest runs are merged into buckets on the charts, and the report says so', async () => {
    const { data } = await small('merged.html', 6000);
    const full = embeddedData(readFileSync(file, 'utf8'));
    expect(data.points.length).toBeLessThan(full.points.length);
    expect(data.points.reduce((n, p) => n + p.runs, 0)).toBe(full.points.length);
    // The newest quarter of the runs keeps a point each, whatever the budget.
    const newestQuarter = Math.ceil(full.points.length / 4);
    expect(data.points.slice(-newestQuarter).every((p) => p.runs === 1)).toBe(true);
    expect(data.meta.budget.note).toMatch(/oldest runs are merged into \d+ points/);
  });
});

describe('report --format markdown', () => {
  it('between two steps, counts the nodes changed by kind as diff does, and lists the failures the artifacts hold', async () => {
    const from = idOf(4);
    const to = idOf(5);
    const result = await replay.cli(['report', '--format', 'markdown', '--from', from, '--to', to]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.startsWith('<!-- dbtattic-report -->\n')).toBe(true);
    const diff = await replay.json<{ node_counts: Record<string, number> }>(['diff', from, to, '--json']);
    const rows = Object.fromEntries([...result.stdout.matchAll(/^\| (\w+) \| (\d+) \|$/gm)].map((m) => [m[1], Number(m[2])]));
    expect(rows).toEqual(diff.node_counts);
    expect(Object.keys(rows).length).toBeGreaterThan(0);
    const failed = [...resultStatuses(runResults(5)!)].filter(([, s]) => FAILED.includes(s)).map(([id]) => id);
    expect(failed.length).toBeGreaterThan(0);
    expect([...result.stdout.matchAll(/^- `([^`]+)` `(?:error|fail|runtime error|partial success)`/gm)].map((m) => m[1])).toEqual(failed.sort());
  });

  it('without --from, compares the newest run with the run before it', async () => {
    const result = await replay.cli(['report', '--format', 'markdown']);
    expect(result.exitCode).toBe(0);
    const diff = await replay.json<{ node_counts: Record<string, number> }>(['diff', idOf(11), idOf(12), '--json']);
    const rows = Object.fromEntries([...result.stdout.matchAll(/^\| (\w+) \| (\d+) \|$/gm)].map((m) => [m[1], Number(m[2])]));
    expect(rows).toEqual(diff.node_counts);
    expect(result.stdout).toContain(`\`${idOf(11).slice(0, 8)}\` → \`${idOf(12).slice(0, 8)}\``);
    expect(result.stdout).toContain('**Failures**: none.');
  });
});
