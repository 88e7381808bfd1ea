import { AtticError } from '../errors.js';
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Database, ReportScope } from '../store/index.js';
import { collectReport } from './collect.js';
import { renderReportHtml, shellSize } from './html.js';

export interface HtmlReportOptions {
  out: string;
  scope: ReportScope;
  scopeText: string;
  toolVersion: string;
  now: Date;
  /** The file's size budget in bytes (10 MB by default). */
  limitBytes: number;
}

export interface HtmlReportResult {
  path: string;
  bytes: number;
  runs: number;
  nodes: number;
  /** What the size budget left out, or null when everything fits. */
  note: string | null;
}

export async function writeHtmlReport(db: Database, options: HtmlReportOptions): Promise<HtmlReportResult> {
  // base64 turns 3 bytes into 4; 2% margin for the JSON's own compression varying.
  const dataBudget = Math.floor((((options.limitBytes - shellSize()) * 3) / 4) * 0.98);
  const data = await collectReport(db, { scope: options.scope, scopeText: options.scopeText, toolVersion: options.toolVersion, now: options.now, dataBudget });
  // An empty page (or an older report replaced by one) answers nothing: said, and nothing written.
  if (data.runs.length === 0)
    throw new AtticError(
      'not-found',
      `No invocation to report on (${options.scopeText}): nothing is written. Capture some first (dbtattic run -- dbt build), or widen --since, --last, --target or --branch.`,
    );
  const html = renderReportHtml(data);
  const bytes = Buffer.byteLength(html);
  // What no merging can shrink (nodes, tests, changes) may still exceed a small budget: say so.
  const over = bytes > options.limitBytes ? `Even so, the file is ${bytes} bytes, over its budget of ${options.limitBytes}.` : null;
  const note = [data.meta.budget.note, over].filter(Boolean).join(' ') || null;
  await writeAtomically(options.out, html);
  return { path: options.out, bytes, runs: data.runs.length, nodes: data.nodes.length, note };
}

/** A temp file beside the target, renamed over it: a reader never sees half a report. */
async function writeAtomically(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, text);
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
