import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enabledNodes, readJson, type Json } from '../helpers/artifact-facts.js';
import { announceBrowserSkip, browserAvailable, openReport, type OpenReport } from '../helpers/browser.js';
import { CORPUS_DIR, hasCorpus } from '../helpers/corpus.js';
import { buildCorpusStore } from '../helpers/corpus-store.js';
import { writeHtmlReport } from '../../src/report/index.js';
import { REPO_DIR } from '../helpers/cli.js';

/**
 * The HTML report of real histories (issue 44), in Chromium:
 * - item 4: a history of docs generate runs only (brooklyn-data/dbt_artifacts' docs/, six
 *   manifests from dbt 0.19 to 1.1): nothing ran, yet the Models page lists the newest
 *   manifest's nodes, and the tiles count that manifest's models and tests;
 * - item 2: a project renamed on the same branch (coffee_shop, whose `dbt test` left a test in
 *   error, then learn_dbt's eight captures): the coffee_shop tests exist in no later manifest,
 *   so none is "failing now" on the Overview, and the Tests page says they are deleted.
 * Expected values are read from the artifacts' JSON.
 */
const SCREENSHOTS = path.join(REPO_DIR, 'test-output', 'report-corpus-pages');
announceBrowserSkip('test/e2e/report-corpus.test.ts (the HTML report of corpus histories in a browser)');

const DOCS_HISTORY = path.join(CORPUS_DIR, 'brooklyn-dbt-artifacts', 'docs');
const RENAMED_FROM = path.join(CORPUS_DIR, 'aec-hannah-bq-1.0.3', 'target-seq', '01_2022-03-01_18f38be0');
const RENAMED_TO = path.join(CORPUS_DIR, 'learn-dbt-nigel-snowflake-1.0-to-1.3', 'target-seq');

const dirsOf = (parent: string): string[] =>
  readdirSync(parent)
    .sort()
    .map((d) => path.join(parent, d));
const newestManifest = (dirs: string[]): Json => readJson(path.join(dirs.filter((d) => existsSync(path.join(d, 'manifest.json'))).at(-1)!, 'manifest.json'));

interface Written {
  file: string;
  browser?: OpenReport;
  remove(): void;
}

async function reportOf(dirs: string[]): Promise<Written> {
  const store = await buildCorpusStore(dirs);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-report-corpus-'));
  const file = path.join(dir, 'report.html');
  try {
    await writeHtmlReport(store.db, { out: file, scope: {}, scopeText: 'every run', toolVersion: 'test', now: new Date(), limitBytes: 10_000_000 });
  } finally {
    store.close();
  }
  const browser = browserAvailable ? await openReport(file) : undefined;
  return { file, browser, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

describe.skipIf(!hasCorpus || !browserAvailable)('report of a history of docs generate runs', () => {
  let written: Written;
  beforeAll(async () => {
    written = await reportOf(dirsOf(DOCS_HISTORY));
    mkdirSync(SCREENSHOTS, { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await written?.browser?.browser.close();
    written?.remove();
  });

  it("lists the newest manifest's nodes on the Models page and counts them on the Overview", async () => {
    const page = written.browser!;
    const newest = enabledNodes(newestManifest(dirsOf(DOCS_HISTORY)));
    const expected = [...newest]
      .filter(([, n]) => !['doc', 'docs', 'group', 'groups'].includes(n.resourceType))
      .map(([id]) => id)
      .sort();
    const count = (type: string): number => [...newest.values()].filter((n) => n.resourceType === type).length;
    expect(count('model')).toBeGreaterThan(0);
    await page.show('models');
    await page.page.screenshot({ path: path.join(SCREENSHOTS, 'corpus-docs-history-models.png'), fullPage: true });
    const listed = await page.page.$$eval('[data-table="models"] tbody tr td:first-child a', (links) => links.map((a) => a.getAttribute('title')));
    expect(listed.sort()).toEqual(expected);
    await page.show('overview');
    expect(Number(await page.page.getAttribute('[data-tile="models"]', 'data-value'))).toBe(count('model'));
    expect(Number(await page.page.getAttribute('[data-tile="tests"]', 'data-value'))).toBe(count('test'));
    expect(page.errors).toEqual([]);
  });
});

describe.skipIf(!hasCorpus || !browserAvailable)('report of a project renamed after a test failed', () => {
  const dirs = (): string[] => [RENAMED_FROM, ...dirsOf(RENAMED_TO)];
  let written: Written;
  beforeAll(async () => {
    written = await reportOf(dirs());
  }, 120_000);
  afterAll(async () => {
    await written?.browser?.browser.close();
    written?.remove();
  });

  /** Tests whose newest result (in run_results order of capture) was an error or a failure, and which the newest manifest lacks. */
  function deletedFailing(): string[] {
    const last = new Map<string, string>();
    for (const dir of dirs()) {
      if (!existsSync(path.join(dir, 'run_results.json'))) continue;
      for (const r of (readJson(path.join(dir, 'run_results.json')).results ?? []) as { unique_id: string; status: string }[]) {
        if (r.unique_id.startsWith('test.') && r.status !== 'skipped') last.set(r.unique_id, r.status);
      }
    }
    const newest = enabledNodes(newestManifest(dirs()));
    return [...last].filter(([id, status]) => ['error', 'fail'].includes(status) && !newest.has(id)).map(([id]) => id);
  }

  it('lists no deleted test as failing now, and marks it deleted on the Tests page', async () => {
    const page = written.browser!;
    const gone = deletedFailing();
    expect(gone.length).toBeGreaterThan(0);
    await page.show('overview');
    const failing = await page.page.$$eval('section', (sections) => {
      const found = sections.find((s) => s.querySelector('h2')?.textContent === 'Flaky and failing tests');
      return [...(found?.querySelectorAll('tbody tr td:first-child a') ?? [])].map((a) => a.getAttribute('title'));
    });
    for (const id of gone) expect(failing).not.toContain(id);
    await page.show('tests');
    await page.page.screenshot({ path: path.join(SCREENSHOTS, 'corpus-renamed-tests.png'), fullPage: true });
    for (const id of gone) {
      const row = page.page.locator('[data-table="tests"] tbody tr', { has: page.page.locator(`a[title="${id}"]`) });
      expect(await row.locator('[data-deleted="true"]').count()).toBe(1);
    }
    expect(page.errors).toEqual([]);
  });

  it('shows on a run page how many nodes had no timing, and a critical path within the wall clock (item 1)', async () => {
    const page = written.browser!;
    const dir = dirs().find(
      (d) =>
        existsSync(path.join(d, 'run_results.json')) &&
        ((readJson(path.join(d, 'run_results.json')).results ?? []) as { timing?: unknown[]; execution_time: number }[]).some(
          (r) => !r.timing?.length && r.execution_time > 0,
        ) &&
        existsSync(path.join(d, 'manifest.json')) &&
        d.startsWith(RENAMED_TO),
    )!;
    const doc = readJson(path.join(dir, 'run_results.json'));
    const untimed = (doc.results as { timing?: unknown[] }[]).filter((r) => !r.timing?.length).length;
    await page.show(`run/${(doc.metadata as { invocation_id: string }).invocation_id}`);
    await page.page.screenshot({ path: path.join(SCREENSHOTS, 'corpus-run-untimed.png'), fullPage: true });
    expect(Number(await page.page.getAttribute('[data-untimed]', 'data-untimed'))).toBe(untimed);
    const tile = async (name: string): Promise<number> => Number(await page.page.getAttribute(`[data-tile="${name}"]`, 'data-value'));
    expect(await tile('critical')).toBeLessThanOrEqual(await tile('wall'));
    expect(page.errors).toEqual([]);
  });

  it("draws a node's lineage two hops each way, coloured by latest status, changes of the newest manifest outlined (item 14)", async () => {
    const page = written.browser!;
    const facts = lineageFacts(dirs());
    await page.show(`model/${facts.node}`);
    await page.page.screenshot({ path: path.join(SCREENSHOTS, 'corpus-lineage.png'), fullPage: true });
    const shown = await page.page.$$eval('[data-lineage] .lineage-column', (columns) =>
      columns.map((c) => ({
        side: c.getAttribute('data-side'),
        nodes: [...c.querySelectorAll('.lineage-node')].map((a) => ({
          id: a.getAttribute('data-node'),
          status: a.getAttribute('data-status'),
          changed: a.getAttribute('data-changed') === 'true',
        })),
      })),
    );
    const side = (name: string): string[] => (shown.find((c) => c.side === name)?.nodes.map((n) => n.id!) ?? []).sort();
    expect(side('up1')).toEqual(facts.up[0]);
    expect(side('up2')).toEqual(facts.up[1] ?? []);
    expect(side('down1')).toEqual(facts.down[0]);
    expect(side('down2')).toEqual(facts.down[1] ?? []);
    const boxes = shown.flatMap((c) => c.nodes);
    for (const box of boxes) expect(box.status, box.id!).toBe(facts.status.get(box.id!) ?? 'none');
    for (const box of boxes) if (facts.codeChanged.has(box.id!)) expect(box.changed, `${box.id} changed its code in the newest manifest`).toBe(true);
    expect(await page.page.locator('[data-lineage-tests]').getAttribute('data-lineage-tests')).toBe(String(facts.tests));
    expect(await page.page.locator('.lineage svg line').count()).toBeGreaterThan(0);
    expect(page.errors).toEqual([]);
  });
});

interface ManifestNode {
  resource_type?: string;
  depends_on?: { nodes?: string[] };
  raw_code?: string;
  raw_sql?: string;
  checksum?: { checksum?: string };
}

/**
 * From the artifacts alone: the newest manifest's model with the most neighbours (at most 12 a
 * hop, tests apart), its parents and children two hops each way, each node's newest status
 * (run_results of builds, else sources.json), and the nodes whose code differs from the manifest before.
 */
function lineageFacts(dirs: string[]): {
  node: string;
  up: string[][];
  down: string[][];
  tests: number;
  status: Map<string, string>;
  codeChanged: Set<string>;
} {
  const manifests = dirs.filter((d) => existsSync(path.join(d, 'manifest.json'))).map((d) => readJson(path.join(d, 'manifest.json')));
  const newest = manifests.at(-1)!;
  const entries = { ...(newest.nodes as Record<string, ManifestNode>), ...(newest.sources as Record<string, ManifestNode>) };
  const isTest = (id: string): boolean => id.startsWith('test.') || id.startsWith('unit_test.');
  const parents = new Map(Object.entries(entries).map(([id, n]) => [id, (n.depends_on?.nodes ?? []).filter((p) => p in entries)]));
  const children = new Map<string, string[]>();
  for (const [id, ps] of parents) for (const p of ps) children.set(p, [...(children.get(p) ?? []), id]);
  const hops = (start: string, next: Map<string, string[]>): string[][] => {
    const seen = new Set([start]);
    const columns: string[][] = [];
    for (let frontier = [start]; frontier.length; ) {
      const column = [...new Set(frontier.flatMap((id) => next.get(id) ?? []))].filter((id) => !seen.has(id) && !isTest(id));
      column.forEach((id) => seen.add(id));
      if (column.length) columns.push(column.sort());
      if (columns.length === 2) break;
      frontier = column;
    }
    return columns;
  };
  const fits = (id: string): boolean => entries[id]!.resource_type === 'model' && [...hops(id, parents), ...hops(id, children)].every((c) => c.length <= 12);
  const node = Object.keys(entries)
    .filter((id) => fits(id) && hops(id, parents).length && hops(id, children).length)
    .sort(
      (a, b) =>
        hops(b, parents).flat().length + hops(b, children).flat().length - hops(a, parents).flat().length - hops(a, children).flat().length ||
        a.localeCompare(b),
    )[0]!;
  const status = new Map<string, string>();
  for (const dir of dirs) {
    const results = existsSync(path.join(dir, 'run_results.json')) ? readJson(path.join(dir, 'run_results.json')) : null;
    const which = (results?.args as { which?: string } | undefined)?.which;
    if (results && !['compile', 'generate', 'rpc', 'show', 'list', 'parse'].includes(which ?? '')) {
      for (const r of results.results as { unique_id: string; status: string }[]) status.set(r.unique_id, r.status);
    }
    const sources = existsSync(path.join(dir, 'sources.json')) ? readJson(path.join(dir, 'sources.json')) : null;
    for (const r of (sources?.results ?? []) as { unique_id: string; status: string }[]) status.set(r.unique_id, r.status);
  }
  const before = manifests.at(-2)!.nodes as Record<string, ManifestNode>;
  const code = (n: ManifestNode | undefined): string | undefined => n && `${n.raw_code ?? n.raw_sql}|${n.checksum?.checksum}`;
  const codeChanged = new Set(Object.keys(entries).filter((id) => id in before && code(before[id]) !== code(entries[id])));
  return { node, up: hops(node, parents), down: hops(node, children), tests: (children.get(node) ?? []).filter(isTest).length, status, codeChanged };
}
