import type { NodeChange, ReportRun, RunDetail } from './data.js';
import type { SeriesInput } from './series.js';

/**
 * What changed since the run before, for every run at once: the report already holds each
 * node's changes (v_node_changes) and each node's statuses run by run, so no per-run `diff`
 * query is needed (at 10,000 nodes one costs over a second, times 200 runs). The run before is
 * `diff`'s: the newest earlier run on the same branch and target that has a manifest. Pure.
 */
export interface RunFacts {
  run: ReportRun;
  seq: number;
  hasManifest: boolean;
}

export function runDiffs(
  runs: RunFacts[],
  changes: { node: string; change: NodeChange }[],
  results: SeriesInput[],
): Map<string, NonNullable<RunDetail['diff']>> {
  const diffs = new Map<string, NonNullable<RunDetail['diff']>>();
  const previousOf = previousRuns(runs);
  for (const { run, hasManifest } of runs) {
    const previous = previousOf.get(run.id);
    const unknown = hasManifest ? {} : { nodes_unknown: 'this run archived no manifest' };
    if (previous) diffs.set(run.id, { previous: previous.run.id, node_counts: {}, nodes: [], ...unknown, statuses: [] });
  }
  for (const { node, change } of changes) {
    const diff = diffs.get(change.run);
    if (!diff) continue;
    diff.nodes.push({ id: node, change: change.kind });
    diff.node_counts[change.kind] = (diff.node_counts[change.kind] ?? 0) + 1;
  }
  addStatusChanges(diffs, runs, previousOf, results);
  return diffs;
}

/** The newest earlier run with a manifest on the same branch and target, per run. */
function previousRuns(runs: RunFacts[]): Map<string, RunFacts> {
  const newest = new Map<string, RunFacts>();
  const previous = new Map<string, RunFacts>();
  for (const facts of runs) {
    const key = `${facts.run.branch ?? ''}\u0000${facts.run.target ?? ''}`;
    const before = newest.get(key);
    if (before) previous.set(facts.run.id, before);
    if (facts.hasManifest) newest.set(key, facts);
  }
  return previous;
}

function addStatusChanges(
  diffs: Map<string, NonNullable<RunDetail['diff']>>,
  runs: RunFacts[],
  previousOf: Map<string, RunFacts>,
  results: SeriesInput[],
): void {
  const pairs = runs.flatMap(({ run, seq }) => {
    const previous = previousOf.get(run.id);
    const diff = diffs.get(run.id);
    return previous && diff ? [{ seq, before: previous.seq, diff }] : [];
  });
  for (const node of results) {
    const statusAt = new Map(node.seqs.map((seq, k) => [seq, node.statuses[k]]));
    for (const { seq, before, diff } of pairs) {
      const [from, to] = [statusAt.get(before), statusAt.get(seq)];
      if (from !== undefined && to !== undefined && from !== to) diff.statuses.push({ id: node.unique_id, from, to });
    }
  }
}
