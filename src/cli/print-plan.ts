import type { NodeVerdict, PlanResult } from '../plan/index.js';
import { formatTime } from './format.js';
import type { CliIo } from './io.js';
import { id, printTable, text } from './print-table.js';
import { wrapLongLines } from './wrap-lines.js';

/** `12 reuse, 5 build: 3 code changed, 2 upstream will build` — the counts on top of the table. */
export function countsLine(plan: PlanResult): string {
  const builds = Object.entries(plan.counts.by_reason).filter(([reason]) => !reason.startsWith('reuse'));
  const reuses = Object.entries(plan.counts.by_reason).filter(([reason]) => reason.startsWith('reuse') && reason !== 'reuse');
  const detail = (entries: [string, number][]): string =>
    entries.length ? ` (${entries.map(([r, n]) => `${n} ${r.replace(/^reuse \((.*)\)$/, '$1')}`).join(', ')})` : '';
  return `${plan.counts.reuse} reuse${detail(reuses)}, ${plan.counts.build} build${detail(builds)}`;
}

export function verdictText(node: NodeVerdict): string {
  if (node.verdict === 'build') return `build (${node.reason})`;
  if (node.from_branch) return `reuse (from ${node.from_branch})`;
  return node.reason === 'unchanged' ? 'reuse' : `reuse (${node.reason})`;
}

export function printPlan(io: CliIo, plan: PlanResult): void {
  io.stdout(`${wrapLongLines(countsLine(plan), io.isTTY ? io.columns : 0)}\n`);
  const colour = (node: NodeVerdict): string => (node.verdict === 'build' ? io.color.yellow(verdictText(node)) : io.color.green(verdictText(node)));
  printTable(
    io,
    [text('verdict', { min: 20 }), text('type', { drop: 1 }), id('node')],
    plan.nodes.map((node) => [colour(node), node.resource_type, node.selector]),
  );
}

/** One node's checks: what was compared, its value at the last build and now, and whether it held. */
export function printExplain(io: CliIo, node: NodeVerdict): void {
  const line = (text: string): void => io.stdout(`${wrapLongLines(text, io.isTTY ? io.columns : 0)}\n`);
  line(`${node.unique_id}: ${verdictText(node)}`);
  if (node.last_build)
    line(
      `last successful build: ${node.last_build.invocation_id}, finished ${node.last_build.finished_at ? formatTime(node.last_build.finished_at) : 'at an unknown time'}`,
    );
  printTable(
    io,
    [text('check'), text('old'), text('new'), text('result')],
    node.checks.map((c) => [c.check, c.old ?? '-', c.new ?? '-', c.ok ? io.color.green('ok') : io.color.yellow(c.reason ? `fails: ${c.reason}` : 'fails')]),
  );
}
