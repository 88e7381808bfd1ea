import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * A real headless Chromium for the report's tests: Debian's `chromium` (.ci/run installs it),
 * driven by playwright-core, which downloads no browser of its own. Without one the tests are
 * skipped and say so by name; with DBTATTIC_REQUIRE_BROWSER=1 (CI) its absence is a failure.
 */
export const CHROMIUM = process.env.DBTATTIC_CHROMIUM ?? '/usr/bin/chromium';
export const browserAvailable = existsSync(CHROMIUM);

if (!browserAvailable && process.env.DBTATTIC_REQUIRE_BROWSER === '1') {
  throw new Error(`DBTATTIC_REQUIRE_BROWSER=1 but no Chromium at ${CHROMIUM}: apt-get install -y chromium, or set DBTATTIC_CHROMIUM`);
}

export function announceBrowserSkip(what: string): void {
  if (!browserAvailable) console.warn(`SKIPPED (no Chromium at ${CHROMIUM}: apt-get install -y chromium, or run .ci/run): ${what}`);
}

export interface OpenReport {
  browser: Browser;
  page: Page;
  /** Console errors and uncaught exceptions, as the page reported them. */
  errors: string[];
  /** Every request other than the report file itself. */
  requests: string[];
  /** Navigates to #hash and waits until the page says it rendered it. */
  show(hash: string): Promise<void>;
}

export async function openReport(file: string): Promise<OpenReport> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const url = pathToFileURL(file).href;
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('request', (request) => request.url().split('#')[0] !== url && requests.push(request.url()));
  await page.goto(`${url}#overview`);
  await rendered(page, 'overview');
  const show = async (hash: string): Promise<void> => {
    await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
    await rendered(page, hash);
  };
  return { browser, page, errors, requests, show };
}

/**
 * Waits until the page has rendered #hash (app.js sets body[data-ready] when done). Polled from
 * here: waitForFunction, once its first look finds the page not yet rendered, evaluates the
 * predicate with eval inside the page, which the report's CSP forbids (a test failed so on a slow
 * runner). Expressions as text: the tests compile without the DOM's types.
 */
export async function rendered(page: Page, hash: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    // A navigation in between destroys the context the look ran in: look again.
    const ready = await page.evaluate('document.body?.dataset.ready ?? null').catch(() => null);
    if (ready === hash) return;
    if (Date.now() > deadline) throw new Error(`the report did not render #${hash} within 30 s (data-ready: ${String(ready)})`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
