/**
 * One run as dbt's model-timing page shows it: each node's bar on its thread, the critical path
 * (the chain of dependent nodes whose durations add up to the longest time: what bounds the run
 * however many threads it has), peak concurrency and the longest node. Pure.
 * Every figure is measured on the bars, dbt's execute timing: a node dbt recorded no timing for
 * (skipped, or failed before executing, `timing: []`) has no bar and no place in the wall clock,
 * so it has none on the critical path either; and execution_time, which also counts compiling,
 * would make a chain of bars longer than the wall clock that holds them.
 */
export interface TimedNode {
  unique_id: string;
  status: string;
  thread: string;
  /** Milliseconds since the epoch; null when dbt recorded no timing (skipped nodes, some failures). */
  start: number | null;
  end: number | null;
}

/** A node with a bar: dbt recorded when it executed. */
type BarNode = TimedNode & { start: number; end: number };

const hasBar = (n: TimedNode): n is BarNode => n.start !== null && n.end !== null;
const seconds = (n: BarNode): number => Math.max(0, n.end - n.start) / 1000;

export interface RunTimeline {
  /** [node, thread index, start offset ms, duration ms, status] per timed node. */
  bars: [string, number, number, number, string][];
  threads: string[];
  critical: string[];
  /** Nodes dbt recorded no timing for: no bar, no place on the critical path. */
  untimed: number;
  tiles: { wall_s: number; critical_s: number; peak_concurrency: number; longest: { unique_id: string; seconds: number } | null };
}

export function runTimeline(nodes: TimedNode[], edges: [string, string][]): RunTimeline {
  const timed = nodes.filter(hasBar);
  const origin = Math.min(...timed.map((n) => n.start));
  const threads = [...new Set(timed.map((n) => n.thread))].sort();
  const bars = timed.map((n): RunTimeline['bars'][number] => [
    n.unique_id,
    threads.indexOf(n.thread),
    n.start - origin,
    Math.max(0, n.end - n.start),
    n.status,
  ]);
  const end = Math.max(...timed.map((n) => n.end));
  const longest = timed.reduce<BarNode | null>((best, n) => (best === null || seconds(n) > seconds(best) ? n : best), null);
  const critical = criticalPath(timed, edges);
  return {
    bars,
    threads,
    critical: critical.path,
    untimed: nodes.length - timed.length,
    tiles: {
      wall_s: timed.length ? (end - origin) / 1000 : 0,
      critical_s: critical.seconds,
      peak_concurrency: peakConcurrency(timed),
      longest: longest ? { unique_id: longest.unique_id, seconds: seconds(longest) } : null,
    },
  };
}

/** The longest chain by summed bar length through the edges among the run's nodes that have a bar. */
export function criticalPath(nodes: TimedNode[], edges: [string, string][]): { path: string[]; seconds: number } {
  const ran = new Map(nodes.filter(hasBar).map((n) => [n.unique_id, n]));
  const parents = new Map<string, string[]>();
  for (const [child, parent] of edges) if (ran.has(child) && ran.has(parent) && child !== parent) parents.set(child, [...(parents.get(child) ?? []), parent]);
  const best = new Map<string, { seconds: number; via: string | null }>();
  const visiting = new Set<string>();
  const finish = (id: string): number => {
    const known = best.get(id);
    if (known) return known.seconds;
    if (visiting.has(id)) return 0; // a cycle cannot be in a dbt graph; never loop on a damaged one
    visiting.add(id);
    let via: string | null = null;
    let upstream = 0;
    for (const parent of parents.get(id) ?? []) {
      const through = finish(parent);
      if (through > upstream) [upstream, via] = [through, parent];
    }
    visiting.delete(id);
    const total = upstream + seconds(ran.get(id)!);
    best.set(id, { seconds: total, via });
    return total;
  };
  let tail: string | null = null;
  let longest = 0;
  for (const id of ran.keys()) if (finish(id) > longest || tail === null) [longest, tail] = [finish(id), id];
  const path: string[] = [];
  for (let at = tail; at !== null; at = best.get(at)?.via ?? null) path.unshift(at);
  return { path, seconds: longest };
}

/** The most nodes running at one instant: a sweep over start and end events. */
export function peakConcurrency(nodes: { start: number | null; end: number | null }[]): number {
  const events = nodes.flatMap(
    (n) =>
      [
        [n.start!, 1],
        [n.end!, -1],
      ] as [number, number][],
  );
  // At equal times, ends first: a node starting as another finishes does not overlap it.
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let running = 0;
  let peak = 0;
  for (const [, step] of events) peak = Math.max(peak, (running += step));
  return peak;
}
