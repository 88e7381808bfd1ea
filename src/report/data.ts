import type { DiffLine } from './code-diff.js';
import type { NodeSeries, Point } from './series.js';
import type { RunTimeline } from './timeline.js';

/**
 * The data a report embeds: aggregated from the store's views before it is written, so the page
 * computes nothing heavier than a sort. Nodes, runs and points are referred to by index.
 */
export interface ReportData {
  meta: {
    generated_at: string;
    tool_version: string;
    project: string | null;
    scope: string;
    /** The newest invocation in scope with a manifest: the project as the report shows it; null when none has one. */
    manifest: string | null;
    /** Failed run results (error, fail, runtime error, partial success) in scope: the Overview's failure tile. */
    failures: number;
    budget: { limit_bytes: number; note: string | null };
  };
  runs: ReportRun[];
  points: Point[];
  nodes: ReportNode[];
  /** Node index → its series (nodes that ran). */
  series: Record<number, NodeSeries>;
  /** Invocation id → the run's detail, for the newest runs the budget holds. */
  details: Record<string, RunDetail>;
  /** Node index → its changes, oldest first. */
  changes: Record<number, NodeChange[]>;
  tests: ReportTest[];
  sources: ReportSource[];
  regressions: { node: number; last_s: number; baseline_s: number; ratio: number; run: string }[];
  /** The newest manifest's lineage (meta.manifest) as node indexes, flattened: child, parent, child, parent, … */
  lineage: number[];
}

export interface ReportRun {
  id: string;
  at: string | null;
  command: string | null;
  target: string | null;
  branch: string | null;
  sha: string | null;
  elapsed_s: number | null;
  outcome: 'ok' | 'failed' | 'none';
  counts: Record<string, number>;
  /** Its run results that failed. */
  failed: number;
  exit: number | null;
}

export interface ReportNode {
  id: string;
  name: string;
  type: string;
  path: string | null;
  materialization: string | null;
  /** The newest manifest in scope (meta.manifest) holds it: a node of the project as it stands. */
  current: boolean;
  runs: number;
  p50_s: number | null;
  p95_s: number | null;
  last_s: number | null;
}

export interface RunDetail {
  timeline: RunTimeline | null;
  problems: { node: string; status: string; message: string | null }[];
  /** What changed since the previous run on its branch and target (`diff` of the two), or null for a first run. */
  diff: {
    previous: string;
    node_counts: Record<string, number>;
    nodes: { id: string; change: string }[];
    /** Why the node changes cannot be known (this run archived no manifest): never "none". Absent when known. */
    nodes_unknown?: string;
    statuses: { id: string; from: string | null; to: string | null }[];
  } | null;
}

export interface NodeChange {
  kind: string;
  what: string[];
  macros: string[];
  run: string;
  from: string;
  at: string | null;
  sha: string | null;
  raw: DiffLine[] | null;
  compiled: DiffLine[] | null;
}

export interface ReportTest {
  node: number;
  runs: number;
  passes: number;
  warns: number;
  fails: number;
  errors: number;
  skips: number;
  last: string | null;
  flaky: boolean;
  tested: string | null;
  /** The project as it stands no longer has it (v_test_history.deleted): history, never "failing now". */
  deleted: boolean;
  /** The run (and sha) where its latest streak of failures began; ongoing when it still fails. */
  failing_since: { run: string; sha: string | null; ongoing: boolean } | null;
}

export interface ReportSource {
  node: number;
  name: string;
  checks: { run: number; status: string | null; age_s: number | null }[];
}
