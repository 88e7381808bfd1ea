/**
 * One run as dbt's model-timing page shows it: each node's bar on its thread, the critical path
 * (the chain of dependent nodes whose durations add up to the longest time: what bounds the run
 * however many threads it has), peak concurrency and the longest node. Pure.
 */
export interface TimedNode {
  unique_id: string;
  status: string;
  thread: string;
  /** Milliseconds since the epoch; null when dbt recorded no timing (skipped nodes). */
  start: number | null;
  end: number | null;
  seconds: number;
}

export interface RunTimeline {
  /** [node, thread index, start offset ms, duration ms, status] per timed node. */
  bars: [string, number, number, number, string][];
  threads: string[];
  critical: string[];
  tiles: { wall_s: number; critical_s: number; peak_concurrency: number; longest: { unique_id: string; seconds: number } | null };
}

export function runTimeline(nodes: TimedNode[], edges: [string, string][]): RunTimeline {
  const timed = nodes.filter((n) => n.start !== null && n.end !== null);
  const origin = Math.min(...timed.map((n) => n.start!));
  const threads = [...new Set(timed.map((n) => n.thread))].sort();
  const bars = timed.map((n): RunTimeline['bars'][number] => [n.unique_id, threads.indexOf(n.thread), n.start! - origin, Math.max(0, n.end! - n.start!), n.status]);
  const end = Math.max(...timed.map((n) => n.end!));
  const longest = nodes.reduce<TimedNode | null>((best, n) => (best === null || n.seconds > best.seconds ? n : best), null);
  const critical = criticalPath(nodes, edges);
  return {
    bars,
    threads,
    critical: critical.path,
    tiles: {
      wall_s: timed.length ? (end - origin) / 1000 : 0,
      critical_s: critical.seconds,
      peak_concurrency: peakConcurrency(timed),
      longest: longest ? { unique_id: longest.unique_id, seconds: longest.seconds } : null,
    },
  };
}

/** The longest chain by summed duration through the edges among the run's own nodes. */
export function criticalPath(nodes: TimedNode[], edges: [string, string][]): { path: string[]; seconds: number } {
  const ran = new Map(nodes.map((n) => [n.unique_id, n]));
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
      const seconds = finish(parent);
      if (seconds > upstream) [upstream, via] = [seconds, parent];
    }
    visiting.delete(id);
    const seconds = upstream + ran.get(id)!.seconds;
    best.set(id, { seconds, via });
    return seconds;
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
  const events = nodes.flatMap((n) => [[n.start!, 1], [n.end!, -1]] as [number, number][]);
  // At equal times, ends first: a node starting as another finishes does not overlap it.
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let running = 0;
  let peak = 0;
  for (const [, step] of events) peak = Math.max(peak, (running += step));
  return peak;
}
