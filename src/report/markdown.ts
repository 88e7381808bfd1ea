import type { Changes } from '../store/index.js';

/**
 * A summary of what changed between two runs, sized for a pull-request comment. It starts
 * with a hidden marker so that a CI step can find its own comment and update it instead of
 * adding another. The counts are `diff`'s (diffInvocations), so the two always agree.
 */
export const MARKDOWN_MARKER = '<!-- dbtattic-report -->';

export interface MarkdownInput {
  changes: Changes;
  short: (id: string) => string;
  /** Failed results of the newer run, with dbt's messages. */
  failures: { unique_id: string; status: string; message: string | null }[];
  /** v_runtime_regressions rows whose last run is the newer run. */
  regressions: { unique_id: string; last_s: number; baseline_median_s: number; trend_ratio: number }[];
  /** The newest plan recorded for the newer run's manifest, if any. */
  plan: { reuse: number; build: number } | null;
}

const LIST_LIMIT = 20;

export function markdownSummary(input: MarkdownInput): string {
  const { changes, short } = input;
  const lines = [MARKDOWN_MARKER, `### dbtattic: \`${short(changes.from)}\` → \`${short(changes.to)}\``, ''];
  if (changes.git.range) lines.push(`git \`${changes.git.range.replace(/([0-9a-f]{7})[0-9a-f]*/g, '$1')}\``, '');
  lines.push(...nodeSection(changes), ...failureSection(input.failures), ...regressionSection(input.regressions));
  if (input.plan) lines.push(`**Plan**: ${input.plan.reuse} reuse, ${input.plan.build} build.`, '');
  return `${lines.join('\n').trimEnd()}\n`;
}

function nodeSection(changes: Changes): string[] {
  // A side without a manifest: the node changes are unknown, never "none".
  if (changes.nodes === null) return [`**Nodes changed**: unknown (${cell(changes.unknown.nodes ?? 'a side has no manifest')}).`, ''];
  const kinds = Object.entries(changes.node_counts).sort(([a], [b]) => a.localeCompare(b));
  if (!kinds.length) return ['**Nodes changed**: none.', ''];
  const total = kinds.reduce((sum, [, n]) => sum + n, 0);
  const out = [`**Nodes changed**: ${total}`, '', '| change | nodes |', '|---|---|', ...kinds.map(([kind, n]) => `| ${kind} | ${n} |`), ''];
  const listed = changes.nodes.slice(0, LIST_LIMIT).map((n) => `- \`${String(n.unique_id)}\`: ${String(n.change)}`);
  return [...out, '<details><summary>Nodes</summary>', '', ...listed, ...more(changes.nodes.length), '', '</details>', ''];
}

function failureSection(failures: MarkdownInput['failures']): string[] {
  if (!failures.length) return ['**Failures**: none.', ''];
  return [`**Failures**: ${failures.length}`, '', ...failures.slice(0, LIST_LIMIT).map((f) => `- \`${f.unique_id}\` ${f.status}${f.message ? `: ${cell(f.message)}` : ''}`), ...more(failures.length), ''];
}

function regressionSection(regressions: MarkdownInput['regressions']): string[] {
  if (!regressions.length) return ['**Runtime regressions**: none.', ''];
  return [`**Runtime regressions**: ${regressions.length}`, '', '| node | last | baseline | ratio |', '|---|---|---|---|',
    ...regressions.slice(0, LIST_LIMIT).map((r) => `| \`${r.unique_id}\` | ${r.last_s.toFixed(1)} s | ${r.baseline_median_s.toFixed(1)} s | ${r.trend_ratio.toFixed(1)}× |`), ...more(regressions.length), ''];
}

function more(count: number): string[] {
  return count > LIST_LIMIT ? [`- … and ${count - LIST_LIMIT} more`] : [];
}

/** One line of a message, safe inside a list item. */
function cell(text: string): string {
  const first = text.split('\n')[0] ?? '';
  return (first.length > 160 ? `${first.slice(0, 157)}…` : first).replace(/[<>|`]/g, (c) => `\\${c}`);
}
