import type { ResultPoint } from '../store/index.js';

/**
 * Each node's results over the report's runs as dense series aligned on shared points (the
 * x-axis of every Model chart). A point is one run, or, past the size budget, a bucket of
 * consecutive older runs summarised by their median duration and worst status. Pure.
 */
export interface SeriesInput {
  unique_id: string;
  seqs: number[];
  statuses: string[];
  ms: (number | null)[];
  rows_affected: (number | null)[];
}

/** A node's results grouped from the store's stream, in run order. */
export async function collectSeriesInputs(chunks: AsyncIterable<ResultPoint[]>): Promise<Map<string, SeriesInput>> {
  const inputs = new Map<string, SeriesInput>();
  for await (const chunk of chunks) {
    for (const r of chunk) {
      let input = inputs.get(r.unique_id);
      if (!input) inputs.set(r.unique_id, (input = { unique_id: r.unique_id, seqs: [], statuses: [], ms: [], rows_affected: [] }));
      input.seqs.push(r.seq);
      input.statuses.push(r.status ?? '');
      input.ms.push(r.ms);
      input.rows_affected.push(r.rows_affected);
    }
  }
  for (const input of inputs.values()) inRunOrder(input);
  return inputs;
}

function inRunOrder(input: SeriesInput): void {
  const order = input.seqs.map((_, k) => k).sort((a, b) => input.seqs[a]! - input.seqs[b]!);
  input.seqs = order.map((k) => input.seqs[k]!);
  input.statuses = order.map((k) => input.statuses[k]!);
  input.ms = order.map((k) => input.ms[k]!);
  input.rows_affected = order.map((k) => input.rows_affected[k]!);
}

export interface Point {
  /** Index of the run (in the report's runs) the point starts at, and how many runs it covers. */
  run: number;
  runs: number;
}

export interface NodeSeries {
  /** Median milliseconds of completed executions per point, null where none. */
  ms: (number | null)[];
  /** One letter per point (STATUS_LETTERS), `-` where the node did not run. */
  st: string;
  rows?: (number | null)[];
  /** Points whose duration regressed by v_runtime_regressions' rule. */
  reg: number[];
}

const STATUS_LETTERS: Record<string, string> = {
  success: 's',
  pass: 'p',
  warn: 'w',
  fail: 'f',
  error: 'e',
  'runtime error': 'e',
  'partial success': 'e',
  skipped: 'k',
  'no-op': 'n',
  reused: 'u',
};
/** Worst first: a bucket shows its worst status. */
const SEVERITY = 'efwkpsnu?';
const COMPLETED = new Set(['success', 'pass', 'warn', 'fail']);

/** Points over the execution runs (given as run indices, oldest first): the newest `individual` alone, older ones in buckets of `bucket`. */
export function choosePoints(executionRuns: number[], individual: number, bucket: number): Point[] {
  const cut = Math.max(0, executionRuns.length - individual);
  const points: Point[] = [];
  for (let k = 0; k < cut; k += bucket) points.push({ run: executionRuns[k]!, runs: Math.min(bucket, cut - k) });
  for (let k = cut; k < executionRuns.length; k++) points.push({ run: executionRuns[k]!, runs: 1 });
  return points;
}

/** seq of every run → its point, given each run's seq. */
export function pointOfSeq(points: Point[], executionRuns: number[], seqOfRun: (run: number) => number): Map<number, number> {
  const map = new Map<number, number>();
  let k = 0;
  points.forEach((point, p) => {
    for (let n = 0; n < point.runs; n++) map.set(seqOfRun(executionRuns[k++]!), p);
  });
  return map;
}

export function nodeSeries(input: SeriesInput, pointOf: Map<number, number>, pointCount: number): NodeSeries {
  const durations: number[][] = Array.from({ length: pointCount }, () => []);
  const letters: string[] = Array(pointCount).fill('-');
  const rows: (number | null)[] = Array(pointCount).fill(null);
  input.seqs.forEach((seq, k) => {
    const p = pointOf.get(seq);
    if (p === undefined) return;
    const status = input.statuses[k] ?? '';
    const ms = input.ms[k];
    if (COMPLETED.has(status) && ms !== null && ms !== undefined) durations[p]!.push(ms);
    letters[p] = worse(letters[p]!, STATUS_LETTERS[status] ?? '?');
    const affected = input.rows_affected[k];
    if (affected !== null && affected !== undefined) rows[p] = (rows[p] ?? 0) + affected;
  });
  const ms = durations.map((values) => (values.length ? median(values) : null));
  const series: NodeSeries = { ms, st: letters.join(''), reg: regressions(ms) };
  if (rows.some((r) => r !== null)) series.rows = rows;
  return series;
}

function worse(a: string, b: string): string {
  if (a === '-') return b;
  return SEVERITY.indexOf(a) <= SEVERITY.indexOf(b) ? a : b;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * v_runtime_regressions' rule applied at every point, not only the last: at least 3 earlier
 * values among the 10 before, above 1.5 times their median and more than 1 s slower.
 */
export function regressions(ms: (number | null)[]): number[] {
  const found: number[] = [];
  const seen: number[] = [];
  ms.forEach((value, p) => {
    if (value === null) return;
    const baseline = seen.slice(-10);
    if (baseline.length >= 3) {
      const base = median(baseline);
      if (value > 1.5 * base && value - base > 1000) found.push(p);
    }
    seen.push(value);
  });
  return found;
}
