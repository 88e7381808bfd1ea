import { readRunEdges, readRunTimeline, type Database, type FactRow } from '../store/index.js';
import type { RunDetail } from './data.js';
import { text } from './shape.js';
import { runTimeline, type TimedNode } from './timeline.js';

/** A run's page in full: its timeline with the critical path, its problems, and what changed since the run before. */
export async function readRunDetail(db: Database, id: string, problems: FactRow[], diff: RunDetail['diff']): Promise<RunDetail> {
  const connection = db.connection;
  const nodes = (await readRunTimeline(connection, id)).map(timedNode);
  const timed = nodes.some((n) => n.start !== null);
  const edges = timed ? (await readRunEdges(connection, id)).map((e): [string, string] => [String(e.unique_id), String(e.depends_on_id)]) : [];
  return {
    timeline: timed ? runTimeline(nodes, edges) : null,
    problems: problems.map((p) => ({ node: String(p.unique_id), status: String(p.status), message: text(p.message) })),
    diff,
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
  };
}
