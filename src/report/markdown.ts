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
  const lines = [MARKDOWN_MARKER, `### dbtattic: ${code(short(changes.from))} → ${code(short(changes.to))}`, ''];
  if (changes.git.range) lines.push(`git ${code(changes.git.range.replace(/([0-9a-f]{7})[0-9a-f]*/g, '$1'))}`, '');
  lines.push(...nodeSection(changes), ...failureSection(input.failures), ...regressionSection(input.regressions));
  if (input.plan) lines.push(`**Plan**: ${input.plan.reuse} reuse, ${input.plan.build} build.`, '');
  return `${lines.join('\n').trimEnd()}\n`;
}

function nodeSection(changes: Changes): string[] {
  // A side without a manifest: the node changes are unknown, never "none".
  // The reason is ours (diff's words and invocation ids), not an artifact's.
  if (changes.nodes === null) return [`**Nodes changed**: unknown (${firstLine(changes.unknown.nodes ?? 'a side has no manifest')}).`, ''];
  const kinds = Object.entries(changes.node_counts).sort(([a], [b]) => a.localeCompare(b));
  if (!kinds.length) return ['**Nodes changed**: none.', ''];
  const total = kinds.reduce((sum, [, n]) => sum + n, 0);
  const out = [`**Nodes changed**: ${total}`, '', '| change | nodes |', '|---|---|', ...kinds.map(([kind, n]) => `| ${kind} | ${n} |`), ''];
  const listed = changes.nodes.slice(0, LIST_LIMIT).map((n) => `- ${code(String(n.unique_id))}: ${String(n.change)}`);
  return [...out, '<details><summary>Nodes</summary>', '', ...listed, ...more(changes.nodes.length), '', '</details>', ''];
}

function failureSection(failures: MarkdownInput['failures']): string[] {
  if (!failures.length) return ['**Failures**: none.', ''];
  return [`**Failures**: ${failures.length}`, '', ...failures.slice(0, LIST_LIMIT).map((f) => `- ${code(f.unique_id)} ${code(f.status)}${f.message ? `: ${code(firstLine(f.message))}` : ''}`), ...more(failures.length), ''];
}

function regressionSection(regressions: MarkdownInput['regressions']): string[] {
  if (!regressions.length) return ['**Runtime regressions**: none.', ''];
  return [`**Runtime regressions**: ${regressions.length}`, '', '| node | last | baseline | ratio |', '|---|---|---|---|',
    ...regressions.slice(0, LIST_LIMIT).map((r) => `| ${code(r.unique_id, 'cell')} | ${r.last_s.toFixed(1)} s | ${r.baseline_median_s.toFixed(1)} s | ${r.trend_ratio.toFixed(1)}× |`), ...more(regressions.length), ''];
}

function more(count: number): string[] {
  return count > LIST_LIMIT ? [`- … and ${count - LIST_LIMIT} more`] : [];
}

/** The first line of a message, at most 160 characters. */
function firstLine(text: string): string {
  const first = text.split(/\r\n|\r|\n/)[0] ?? '';
  return first.length > 160 ? `${first.slice(0, 157)}…` : first;
}

/**
 * Text from artifacts (names, statuses, dbt's messages) as a code span: GitHub and GitLab render
 * it as it is, so a mention (@org/team), a link, an image, a bare URL, HTML or a heading in it
 * reaches nobody. Its delimiter is one backtick longer than any run inside; line breaks and
 * other control characters become spaces; in a table cell a pipe is escaped, which GFM asks even
 * inside code. Escaping single characters left mentions, links and URLs live.
 */
export function code(text: string, where: 'inline' | 'cell' = 'inline'): string {
  // eslint-disable-next-line no-control-regex
  let body = text.replace(/[\x00-\x1f\x7f\u2028\u2029]/g, ' ');
  if (where === 'cell') body = body.replace(/\|/g, '\\|');
  const longest = Math.max(0, ...(body.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = body.startsWith('`') || body.endsWith('`') || (body.startsWith(' ') && body.endsWith(' ') && body.trim() !== '') ? ' ' : '';
  return body === '' ? '` `' : `${fence}${pad}${body}${pad}${fence}`;
}
