/**
 * `dbtattic report`: the history as one self-contained HTML file, or a markdown summary for a
 * pull request. Terms:
 * - scope: the invocations a report covers (target, branch, since, last N).
 * - point: one x position of every node chart: a run, or past the size budget a bucket of
 *   older runs (series.ts).
 * - detail: a run's full page (timeline, critical path, problems, diff); kept for the newest
 *   runs the budget holds.
 * Reads the store (its report readers); shaping, timelines and diffs are pure; html.ts inlines
 * uPlot and the page's code from assets/report/.
 */
export { writeHtmlReport, type HtmlReportOptions, type HtmlReportResult } from './write.js';
export { readMarkdownSummary } from './summary.js';
export { MARKDOWN_MARKER } from './markdown.js';
export type { ReportData } from './data.js';
