// The extension in a real VS Code (code-server), checked as a person would: packaged with vsce,
// installed, opened on the fixture project after its replayed history (fixtures/replay.mjs).
// Expected values come from the CLI (`history --json`, `query`), the store's one definition.
// Run by `npm run test:vscode` at the repo root (after `npm run build` and `npm run package:vscode`).
// Screenshots of each step: $DBTATTIC_VSCODE_SCREENSHOTS, else reports/vscode/ in the repo.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { prepareReplay } from '../../../fixtures/replay.mjs';
import { codeServerBinary, startCodeServer } from './code-server.mjs';
import { openWorkbench, treeRows, viewMessage } from './workbench.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const vsix = path.join(repo, 'vscode', 'dbtattic-vscode.vsix');
const screenshots = process.env.DBTATTIC_VSCODE_SCREENSHOTS ?? path.join(repo, 'reports', 'vscode');
const work = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-vscode-'));
const baseSettings = {
  'security.workspace.trust.enabled': false,
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};
let replay, server, workbench, history;

const attic = (args) => {
  const result = replay.attic(args);
  // With --json an error is printed on stdout, so both are shown.
  assert.equal(result.exitCode, 0, `dbtattic ${args.join(' ')}: ${result.stderr}${result.stdout}`);
  return JSON.parse(result.stdout);
};

before(async () => {
  rmSync(screenshots, { recursive: true, force: true });
  mkdirSync(screenshots, { recursive: true });
  const env = { NO_COLOR: '1', PATH: process.env.PATH, HOME: process.env.HOME };
  replay = prepareReplay(path.join(work, 'replay'), { env });
  // The last step is replayed while the workbench is open: the views must notice it by themselves.
  for (const step of replay.steps.slice(0, -1)) assert.equal(replay.replayStep(step).exitCode, step.exit_code, `step ${step.step}`);
  // The workbench reads the history as it opens: a read while a catch-up or compaction left in the
  // background holds the store reads it as it is, and nothing would bring the view up to date.
  replay.settle();
  // The extension host takes PATH from the login shell, so the CLI is configured by path.
  const bin = path.join(work, 'bin');
  mkdirSync(bin);
  symlinkSync(path.join(repo, 'bin', 'dbtattic.js'), path.join(bin, 'dbtattic'));
  server = await launch('code-server', { 'dbtattic.cliPath': path.join(bin, 'dbtattic') });
  console.log(`screenshots: ${screenshots}`);
});

after(async () => {
  await workbench?.close();
  server?.stop();
  rmSync(work, { recursive: true, force: true });
});

test('the packaged extension (.vsix) is under 1 MB', () => {
  assert.ok(statSync(vsix).size < 1024 * 1024, `${vsix} is ${statSync(vsix).size} bytes`);
});

/** A test that leaves a screenshot of the workbench when it fails. */
function check(name, fn) {
  test(name, async () => {
    try {
      await fn();
    } catch (error) {
      await workbench?.screenshot('FAILED').catch(() => undefined);
      throw error;
    }
  });
}

/** Starts code-server with these settings, opens the workbench and the dbtattic view. */
async function launch(name, settings) {
  const started = await startCodeServer({
    binary: codeServerBinary(repo),
    home: path.join(work, name),
    vsix,
    folder: replay.project,
    settings: { ...baseSettings, ...settings },
  });
  workbench = await openWorkbench(started.url, screenshots);
  await workbench.page.locator('.activitybar .action-label[aria-label^="dbtattic"]').click();
  // Wider, as a person would drag it, so that the runs' descriptions can be read.
  await workbench.dragSidebarEdge(560);
  return started;
}

/** The Runs view's rows against `history --json`: command, status (outcome) and git sha, in order. */
async function checkRuns(expected) {
  const rows = await treeRows(workbench.page, 'Runs', (r) => r.filter(([, , level]) => level === 1).length === expected.length);
  assert.deepEqual(
    rows.map(([label, description]) => [label, description.split(' · ')[0], description.split(' · ')[2]]),
    expected.map((run) => [run.command, run.outcome, run.git_sha.slice(0, 7)]),
  );
}

check('the Runs view lists the invocations, newest first, with the statuses history --json gives', async () => {
  history = attic(['history', '--json', '--limit', '100']);
  assert.ok(history.some((run) => run.outcome === 'failed') && history.some((run) => run.outcome === 'ok'));
  await checkRuns(history);
  await workbench.screenshot('runs');
});

check('a capture while the workbench is open shows up without a refresh (the archive is watched)', async () => {
  const last = replay.steps.at(-1);
  assert.equal(replay.replayStep(last).exitCode, last.exit_code);
  history = attic(['history', '--json', '--limit', '100']);
  assert.equal(history[0].invocation_id, last.invocation_id);
  await checkRuns(history);
  await workbench.screenshot('runs-after-capture');
});

check("a failed run expands to its failed node and dbt's message", async () => {
  const { page } = workbench;
  const failed = attic(['history', '--failed', '--json']).find((run) => run.failures.length > 0);
  const index = history.findIndex((run) => run.invocation_id === failed.invocation_id);
  await page.locator('.monaco-list[aria-label="Runs"] .monaco-list-row').nth(index).locator('.monaco-tl-twistie').click();
  const rows = await treeRows(page, 'Runs', (r) => r.some(([, , level]) => level === 2));
  const children = rows.filter(([, , level]) => level === 2);
  assert.deepEqual(
    children.map(([label]) => label),
    failed.failures.map((f) => f.unique_id),
  );
  assert.equal(children[0][1], `${failed.failures[0].status}: ${failed.failures[0].message.split('\n')[0]}`);
  await workbench.screenshot('failed-run-expanded');
});

check('the CodeLens on a model shows the median runtime the store gives', async () => {
  const { page } = workbench;
  const [stats] = attic(['query', '--json', "select median_s, last_s from v_node_runtime where unique_id = 'model.attic_shop.orders'"]);
  await openFile(page, 'models/marts/orders.sql');
  const lens = page.locator('.codelens-decoration').filter({ hasText: 'median' });
  await lens.waitFor({ timeout: 60_000 });
  const text = await lens.textContent();
  assert.match(text, new RegExp(`median ${stats.median_s.toFixed(2)}s`));
  assert.match(text, new RegExp(`last success in ${stats.last_s.toFixed(2)}s`));
  await workbench.screenshot('codelens');
});

check("a hover on ref('x') shows x's last status and runtime", async () => {
  const { page } = workbench;
  const [stats] = attic(['query', '--json', "select last_s, median_s from v_node_runtime where unique_id = 'model.attic_shop.stg_orders'"]);
  await page
    .locator('.view-line span span')
    .filter({ hasText: /^'stg_orders'$/ })
    .first()
    .hover();
  const hover = page.locator('.monaco-hover-content', { hasText: 'stg_orders' });
  await hover.waitFor({ timeout: 30_000 });
  assert.match(
    await hover.textContent(),
    new RegExp(`stg_orders \\(model\\): last success, ${stats.last_s.toFixed(2)}s; median ${stats.median_s.toFixed(2)}s`),
  );
  await workbench.screenshot('ref-hover');
  await page.keyboard.press('Escape');
});

check('"Compare with last successful build" opens a diff editor against the archived code', async () => {
  const { page } = workbench;
  // A person edits the model: the diff shows the edit against the code of its last success.
  const file = path.join(replay.project, 'models/marts/orders.sql');
  const archived = readFileSync(file, 'utf8');
  writeFileSync(file, archived.replace('select', '-- an edit in progress\nselect'));
  await page.locator('.codelens-decoration a', { hasText: 'Compare with last successful build' }).click();
  const diff = page.locator('.monaco-diff-editor');
  await diff.waitFor({ timeout: 60_000 });
  await diff.locator('.line-insert').first().waitFor({ timeout: 30_000 });
  const tab = await page.locator('.tab.active').textContent();
  assert.match(tab, /orders\.sql: last success/);
  await workbench.screenshot('compare-diff');
});

check('the Query panel runs SQL against the store and shows a table', async () => {
  const { page } = workbench;
  await runCommand(page, 'dbtattic: Open Query Panel');
  const frame = page.frameLocator('iframe.webview').frameLocator('iframe');
  await frame.locator('#sql').fill('select command, count(*) as runs from invocation group by command order by command');
  await frame.locator('#run').click();
  const expected = attic(['query', '--json', 'select command, count(*) as runs from invocation group by command order by command']);
  const cells = frame.locator('table tr:nth-child(2) td');
  await cells.first().waitFor({ timeout: 60_000 });
  assert.equal(await frame.locator('table tr').count(), expected.length + 1);
  assert.deepEqual(await cells.allTextContents(), [expected[0].command, String(expected[0].runs)]);
  await workbench.screenshot('query-panel');
});

check('a missing CLI is said in the views, in place of their items', async () => {
  await workbench.close();
  server.stop();
  server = await launch('code-server-no-cli', { 'dbtattic.cliPath': path.join(work, 'no-such-dir', 'dbtattic') });
  for (const view of ['Runs', 'Insights']) {
    await viewMessage(workbench.page, view).filter({ hasText: 'dbtattic was not found' }).waitFor({ timeout: 60_000 });
  }
  await workbench.screenshot('missing-cli');
});

async function runCommand(page, title) {
  await page.keyboard.press('F1');
  await page.keyboard.type(title);
  await pickFirst(page, title);
}

async function openFile(page, relative) {
  await page.locator('.monaco-workbench').click({ position: { x: 700, y: 300 } });
  await page.keyboard.press('Control+P');
  await page.keyboard.type(relative);
  await pickFirst(page, path.basename(relative));
  await page.locator(`.tab.active[aria-label^="${path.basename(relative)}"]`).waitFor();
}

/**
 * Enter in the quick input once its first row starts with `label`. Pressed as soon as there was
 * a first row, it took whatever the list showed before it caught up with the typing: on a loaded
 * machine, docs.md opened in place of models/marts/orders.sql.
 */
async function pickFirst(page, label) {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  await page
    .locator('.quick-input-list .monaco-list-row')
    .first()
    .filter({ hasText: new RegExp(`^\\s*${escaped}`, 'i') })
    .waitFor();
  await page.keyboard.press('Enter');
}
