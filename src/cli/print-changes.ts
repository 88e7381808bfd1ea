import type { Changes } from '../store/index.js';

type Row = Record<string, unknown>;
import { shortId } from '../vocab/index.js';
import type { CliIo } from './io.js';

/** The human form of a comparison, shared by inspect and diff; `abbreviate` prints an invocation id so it can be typed back. */
export function printChanges(io: CliIo, changes: Changes, abbreviate: (id: string) => string): void {
  const line = (text: string): void => io.stdout(`${text}\n`);
  const { manifests } = changes;
  if (manifests.from && manifests.to && (manifests.from !== changes.from || manifests.to !== changes.to)) {
    line(`manifests   ${abbreviate(manifests.from)} → ${abbreviate(manifests.to)} (the nearest earlier runs with one, as --nearest asked)`);
  }
  if (changes.nodes === null) line(`nodes       unknown: ${changes.unknown.nodes ?? 'a side has no manifest'}`);
  else printNodes(io, changes.nodes, changes.node_counts);
  printMacros(io, changes);
  line(
    `code        ${changes.same_code === null ? 'fingerprint unknown' : changes.same_code ? 'same code fingerprint' : 'code fingerprint changed'}` +
      `${changes.git.range ? `; git ${shortSha(changes.git.from)}..${shortSha(changes.git.to)}` : changes.git.from ? `; same commit ${shortSha(changes.git.from)}` : ''}`,
  );
  line(
    `data        ${changes.catalog.changed === null ? 'no catalog snapshot on one side or both' : changes.catalog.changed ? `snapshot ${changes.catalog.from} → ${changes.catalog.to}` : `same snapshot ${changes.catalog.to}`}`,
  );
  if (changes.statuses === null) {
    line(`statuses    unknown: ${changes.unknown.statuses ?? 'a side has no run results'}`);
    return;
  }
  line(`statuses    ${changes.statuses.length === 0 ? 'no change' : `${changes.statuses.length} changed`}`);
  for (const s of changes.statuses) line(`  ${s.unique_id}: ${s.from_status} → ${s.to_status}`);
  const moved = (changes.runtimes ?? []).filter((r) => Math.abs(Number(r.delta_s)) >= 0.01);
  if (moved.length > 0) line('runtimes    biggest changes');
  for (const r of moved.slice(0, 5)) line(`  ${r.unique_id}: ${r.from_s}s → ${r.to_s}s (${Number(r.delta_s) > 0 ? '+' : ''}${r.delta_s}s)`);
}

function printNodes(io: CliIo, nodes: Row[], nodeCounts: Record<string, number>): void {
  const counts = Object.entries(nodeCounts)
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ');
  io.stdout(`nodes       ${counts || 'no change'}\n`);
  for (const node of nodes) {
    const aspects = Array.isArray(node.aspects) && node.aspects.length > 1 ? io.color.dim(` (${node.aspects.join(', ')})`) : '';
    io.stdout(`  ${colourKind(io, String(node.change)).padEnd(10 + kindPadding(io))} ${node.unique_id}${aspects}\n`);
  }
}

/** dbt's own macros change by the hundred with a dbt upgrade: the first few, then a count. */
const MACROS_LISTED = 20;

function printMacros(io: CliIo, changes: Changes): void {
  if (changes.macros === null) {
    io.stdout('macros      unknown (as nodes)\n');
    return;
  }
  const counts = Object.entries(changes.macro_counts)
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ');
  io.stdout(`macros      ${counts || 'no change'}\n`);
  for (const macro of changes.macros.slice(0, MACROS_LISTED)) io.stdout(`  ${String(macro.change).padEnd(10)} ${macro.unique_id}\n`);
  if (changes.macros.length > MACROS_LISTED) io.stdout(`  … and ${changes.macros.length - MACROS_LISTED} more (--json lists them all)\n`);
}

function shortSha(sha: unknown): string {
  return typeof sha === 'string' ? shortId(sha, 7) : '?';
}

function colourKind(io: CliIo, kind: string): string {
  if (kind === 'semantic' || kind === 'removed') return io.color.red(kind);
  if (kind === 'added' || kind === 'relation' || kind === 'config') return io.color.yellow(kind);
  return io.color.dim(kind);
}

/** ANSI codes take room in padEnd but none on screen. */
function kindPadding(io: CliIo): number {
  return io.color.level > 0 ? io.color.red('').length : 0;
}
