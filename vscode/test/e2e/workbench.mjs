// The workbench as a person uses it, through playwright-core in Debian's chromium: click the
// activity bar, read tree rows, open files, click CodeLenses, and take a screenshot of each step.
import path from 'node:path';
import { chromium } from 'playwright-core';

let shot = 0;

export async function openWorkbench(url, screenshotDir) {
  const browser = await chromium.launch({ executablePath: process.env.DBTATTIC_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1440, height: 760 } });
  await page.goto(url);
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  return {
    page,
    close: () => browser.close(),
    async dragSidebarEdge(x) {
      const edge = await page.locator('.part.sidebar').boundingBox();
      const sashes = await page.locator('.monaco-sash.vertical').all();
      const boxes = (await Promise.all(sashes.map((sash) => sash.boundingBox()))).filter(Boolean);
      const box = boxes.find((b) => Math.abs(b.x + b.width / 2 - (edge.x + edge.width)) < 6);
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(x, box.y + box.height / 2, { steps: 5 });
      await page.mouse.up();
    },
    /** Writes `NN-name.png` into the screenshot directory and returns its path. */
    async screenshot(name, options = {}) {
      shot += 1;
      const file = path.join(screenshotDir, `${String(shot).padStart(2, '0')}-${name}.png`);
      await page.screenshot({ path: file, ...options });
      return file;
    },
  };
}

/** The rows of a tree view (by its title) as [label, description] pairs, once `ready` accepts them. */
export async function treeRows(page, view, ready = (rows) => rows.length > 0) {
  const tree = page.locator(`.monaco-list[aria-label="${view}"]`);
  let rows = [];
  for (let tries = 0; tries < 120; tries += 1) {
    rows = await tree
      .locator('.monaco-list-row')
      .evaluateAll((els) =>
        els.map((el) => [
          el.querySelector('.label-name')?.textContent ?? '',
          el.querySelector('.label-description')?.textContent ?? '',
          Number(el.getAttribute('aria-level')),
        ]),
      );
    if (ready(rows)) return rows;
    await page.waitForTimeout(500);
  }
  throw new Error(`the ${view} view never showed what was expected; it shows ${JSON.stringify(rows)}`);
}

/** The message a tree view shows in place of its items. */
export function viewMessage(page, view) {
  return page
    .locator('.pane')
    .filter({ has: page.locator(`.pane-header[aria-label^="${view}"]`) })
    .locator('.message');
}
