import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceBrowserSkip, browserAvailable, openReport, type OpenReport } from '../helpers/browser.js';
import { attic, installedHistory } from './installed.js';

/** The report the installed package writes on this Node line, opened in a real headless Chromium. */
announceBrowserSkip("test/smoke/report.test.ts (the installed package's report in a browser)");

let workDir: string;
let report: OpenReport | undefined;

beforeAll(async () => {
  const replay = await installedHistory();
  workDir = replay.workDir;
  const file = path.join(workDir, 'report.html');
  const written = attic(['report', '--out', file], replay.project);
  if (written.exitCode !== 0) throw new Error(`report exited ${written.exitCode}: ${written.stderr}`);
  if (browserAvailable) report = await openReport(file);
});
afterAll(async () => {
  await report?.browser.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe.skipIf(!browserAvailable)('the installed report in Chromium', () => {
  it('renders every page with its charts, with no error and no request', async () => {
    for (const hash of ['overview', 'runs', 'models', 'tests', 'sources']) await report!.show(hash);
    expect(await report!.page.locator('canvas, svg').count()).toBeGreaterThan(0);
    expect(report!.errors).toEqual([]);
    expect(report!.requests).toEqual([]);
  });
});
