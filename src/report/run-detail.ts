import { diffInvocations, previousInvocation, readRunEdges, readRunTimeline, type Database, type FactRow } from '../store/index.js';
import type { RunDetail } from './data.js';
import { num, text } from './shape.js';
import { runTimeline, type TimedNode } from './timeline.js';

/** A run's page in full: its timeline with the critical path, its problems, and its `diff` from the previous run. */
export async function readRunDetail(db: Database, id: string, problems: FactRow[]): Promise<RunDetail> {
  const connection = db.connection;
  const results = await readRunTimeline(connection, id);
  const nodes = results.map(timedNode);
  const edges = nodes.some((n) => n.start !== null) ? (await readRunEdges(connection, id)).map((e): [string, string] => [String(e.unique_id), String(e.depends_on_id)]) : [];
  const previous = await previousInvocation(connection, id);
  const changes = previous ? await diffInvocations(connection, previous, id) : null;
  return {
    timeline: nodes.some((n) => n.start !== null) ? runTimeline(nodes, edges) : null,
    problems: problems.map((p) => ({ node: String(p.unique_id), status: String(p.status), message: text(p.message) })),
    diff: changes && previous
      ? {
          previous,
          node_counts: changes.node_counts,
          nodes: changes.nodes.map((n) => ({ id: String(n.unique_id), change: String(n.change) })),
          statuses: changes.statuses.map((s) => ({ id: String(s.unique_id), from: text(s.from_status), to: text(s.to_status) })),
        }
      : null,
  };
}

function timedNode(row: FactRow): TimedNode {
  const start = row.execute_started_at ? Date.parse(String(row.execute_started_at)) : NaN;
  const end = row.execute_completed_at ? Date.parse(String(row.execute_completed_at)) : NaN;
  const timed = Number.isFinite(start) && Number.isFinite(end);
  return {
    unique_id: String(row.unique_id),
    status: String(row.status),
    thread: text(row.thread_id) ?? 'main',
    start: timed ? start : null,
    end: timed ? end : null,
    seconds: num(row.execution_time) ?? 0,
  };
}
