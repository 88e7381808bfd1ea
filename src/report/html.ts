import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import type { ReportData } from './data.js';

/**
 * The report as one HTML file: uPlot and the page's own code inlined, the data gzipped and
 * base64-encoded in a script element (the page inflates it with the browser's
 * DecompressionStream). A Content-Security-Policy forbids every fetch, so the file works from
 * file://, by mail or as a CI artifact, and provably loads nothing.
 */
const ASSETS = new URL('../../assets/report/', import.meta.url);
// The page's code, in load order: charts and pages use what app.js defines last.
const SCRIPTS = ['format.js', 'charts.js', 'pages-overview.js', 'pages-run.js', 'pages-node.js', 'pages-tests.js', 'pages-lineage.js', 'app.js'];
const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";

export function renderReportHtml(data: ReportData): string {
  const encoded = gzipSync(JSON.stringify(data), { level: 9 }).toString('base64');
  return shell(data.meta.project ?? 'dbt project', encoded);
}

/** Everything but the data: its size is what the budget leaves out. */
export function shellSize(): number {
  return Buffer.byteLength(shell('', ''));
}

function shell(project: string, encoded: string): string {
  const require = createRequire(import.meta.url);
  const uplotJs = readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8');
  const uplotCss = readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8');
  const asset = (name: string): string => readFileSync(new URL(name, ASSETS), 'utf8');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>dbtattic report: ${escapeHtml(project)}</title>
<style>${uplotCss}\n${asset('report.css')}</style>
</head><body>
<header><a href="#overview" class="brand">dbtattic</a><nav><a href="#overview">Overview</a><a href="#runs">Runs</a><a href="#models">Models</a><a href="#tests">Tests</a><a href="#sources">Sources</a></nav>
<input id="search" type="search" placeholder="Search nodes…" autocomplete="off"><div id="search-results"></div></header>
<main id="page"><p class="loading">Loading…</p></main>
<script id="report-data" type="application/octet-stream" data-encoding="gzip+base64">${encoded}</script>
<script>${uplotJs.replace(/<\/script/gi, '<\\/script')}</script>
<script>"use strict";\n${SCRIPTS.map(asset).join('\n')}</script>
</body></html>
`;
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
