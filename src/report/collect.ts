import { gzipSync } from 'node:zlib';
import {
  boundReportMemory,
  readNewestEdges,
  readNodeChanges,
  readNodeRuntimes,
  readReportNodes,
  readReportRuns,
  readRunProblems,
  readRuntimeRegressions,
  readSourceChecks,
  readTestHistory,
  streamResults,
  type Database,
  type FactRow,
  type ReportScope,
} from '../store/index.js';
import type { ReportData, RunDetail } from './data.js';
import { readRunDetail } from './run-detail.js';
import { runDiffs } from './run-diff.js';
import { choosePoints, collectSeriesInputs, nodeSeries, pointOfSeq, type Point, type SeriesInput } from './series.js';
import { failingSince, nodeChange, num, reportNode, reportRun, reportSources, reportTest } from './shape.js';

export interface CollectOptions {
  scope: ReportScope;
  scopeText: string;
  toolVersion: string;
  now: Date;
  /** Bytes the embedded data may take once compressed (the page's code comes on top). */
  dataBudget: number;
}

/**
 * Reads the store once and shapes everything a report shows. Within the budget: each run its
 * own point on every chart, and every run's page in full; past it, older runs are merged into
 * buckets (charts) and lose their timeline (run pages), newest kept first, and the report says so.
 */
export async function collectReport(db: Database, options: CollectOptions): Promise<ReportData> {
  const c = db.connection;
  await boundReportMemory(c);
  const scope = options.scope;
  const runs = (await readReportRuns(c, scope)).map((row) => ({ row, run: reportRun(row) }));
  const defined = new Map((await readReportNodes(c, scope)).map((r) => [String(r.unique_id), r]));
  const ran = new Map((await readNodeRuntimes(c, scope)).map((r) => [String(r.unique_id), r]));
  const results = await collectSeriesInputs(streamResults(c, scope));
  const ids = [...new Set([...defined.keys(), ...results.keys()])].sort();
  const nodeIndex = new Map(ids.map((id, k) => [id, k]));
  const indexOf = (id: string): number => nodeIndex.get(id) ?? -1;
  const runIndex = new Map(runs.map(({ run }, k) => [run.id, k]));
  const runOfSeq = new Map(runs.map(({ row, run }) => [Number(row.seq), run]));
  const executions = runs.flatMap(({ row }, k) => (row.builds && Number(row.result_count) > 0 ? [k] : []));
  const data: ReportData = {
    meta: {
      generated_at: options.now.toISOString(),
      tool_version: options.toolVersion,
      project: runs.length ? String(runs[runs.length - 1]!.row.project_name ?? '') || null : null,
      scope: options.scopeText,
      manifest: runs.findLast(({ row }) => row.has_manifest === true)?.run.id ?? null,
      failures: runs.reduce((sum, { run }) => sum + run.failed, 0),
      budget: { limit_bytes: options.dataBudget, note: null },
    },
    runs: runs.map(({ run }) => run),
    points: [],
    nodes: ids.map((id) => reportNode(id, defined.get(id), ran.get(id))),
    series: {},
    details: {},
    changes: {},
    tests: (await readTestHistory(c, scope)).map((row) => {
      const id = String(row.unique_id);
      const own = results.get(id) ?? { seqs: [], statuses: [] };
      return reportTest(
        row,
        indexOf(id),
        failingSince(own.statuses, (k) => runOfSeq.get(own.seqs[k]!)),
      );
    }),
    sources: reportSources(await readSourceChecks(c, scope), indexOf, runIndex),
    regressions: (await readRuntimeRegressions(c))
      .map((r) => ({
        node: indexOf(String(r.unique_id)),
        last_s: num(r.last_s)!,
        baseline_s: num(r.baseline_median_s)!,
        ratio: num(r.trend_ratio)!,
        run: String(r.last_invocation_id),
      }))
      .filter((r) => r.node >= 0),
    lineage: (await readNewestEdges(c, scope)).flatMap((e) => lineageEdge(indexOf(String(e.unique_id)), indexOf(String(e.depends_on_id)))),
  };
  const changes = (await readNodeChanges(c, scope)).map((row) => ({ node: String(row.unique_id), change: nodeChange(row) }));
  for (const { node, change } of changes) (data.changes[indexOf(node)] ??= []).push(change);
  const diffs = runDiffs(
    runs.map(({ row, run }) => ({ run, seq: Number(row.seq), hasManifest: row.has_manifest === true })),
    changes,
    [...results.values()],
  );
  fitSeries(
    data,
    executions,
    (k) => Number(runs[k]!.row.seq),
    ids.map((id) => results.get(id)),
    options.dataBudget,
  );
  await addDetails(db, data, await readRunProblems(c, scope), (id) => diffs.get(id) ?? null, options.dataBudget);
  return data;
}

/** An edge between two nodes of the report; one to a node it does not hold (disabled, outside the project) is left out. */
function lineageEdge(child: number, parent: number): number[] {
  return child >= 0 && parent >= 0 && child !== parent ? [child, parent] : [];
}

export function compressedSize(value: unknown): number {
  return gzipSync(JSON.stringify(value), { level: 6 }).length;
}

/** The series at full resolution if the data fits in 80% of the budget (the rest is for run pages), else older runs in ever larger buckets. */
function fitSeries(data: ReportData, executions: number[], seqOf: (run: number) => number, inputs: (SeriesInput | undefined)[], budget: number): void {
  // The newest quarter of the runs (at most 50) always keeps a point each.
  const keepNewest = Math.min(50, Math.ceil(executions.length / 4));
  for (let bucket = 1; ; bucket *= 2) {
    const points: Point[] = bucket === 1 ? choosePoints(executions, executions.length, 1) : choosePoints(executions, keepNewest, bucket);
    data.points = points;
    data.series = seriesOf(points, executions, seqOf, inputs);
    const buckets = points.filter((p) => p.runs > 1);
    const merged = buckets.reduce((n, p) => n + p.runs, 0);
    data.meta.budget.note = buckets.length
      ? `On the charts, the ${merged} oldest runs are merged into ${buckets.length} points of up to ${bucket} runs (each shows their median and worst status), to keep this file within its size budget.`
      : null;
    if (compressedSize(data) <= budget * 0.8 || points.length <= keepNewest + 1) return;
  }
}

function seriesOf(points: Point[], executions: number[], seqOf: (run: number) => number, inputs: (SeriesInput | undefined)[]): ReportData['series'] {
  const pointOf = pointOfSeq(points, executions, seqOf);
  const series: ReportData['series'] = {};
  inputs.forEach((input, k) => {
    if (input) series[k] = nodeSeries(input, pointOf, points.length);
  });
  return series;
}

/** Run pages in full, newest first, while the budget lasts. */
async function addDetails(db: Database, data: ReportData, problems: FactRow[], diffOf: (id: string) => RunDetail['diff'], budget: number): Promise<void> {
  let left = budget - compressedSize(data);
  const byRun = new Map<string, FactRow[]>();
  for (const p of problems) {
    const id = String(p.invocation_id);
    byRun
      .set(id, byRun.get(id) ?? [])
      .get(id)!
      .push(p);
  }
  let kept = 0;
  for (const run of [...data.runs].reverse()) {
    const detail = await readRunDetail(db, run.id, byRun.get(run.id) ?? [], diffOf(run.id));
    left -= compressedSize(detail);
    if (left < 0) break;
    data.details[run.id] = detail;
    kept++;
  }
  if (kept < data.runs.length) {
    const note = `The ${kept} newest runs have full pages; the ${data.runs.length - kept} older ones show their summary only (size budget).`;
    data.meta.budget.note = data.meta.budget.note ? `${data.meta.budget.note} ${note}` : note;
  }
}
