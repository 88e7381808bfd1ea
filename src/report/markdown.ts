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
  /** The newer run's results by status (`{"success": 8, "pass": 11, "error": 1}`); null without results. */
  ran: Record<string, number> | null;
  /** Each changed node's descendants in the newer run's lineage: what `state:modified+` builds with it. */
  downstream: Map<string, string[]>;
  /** Failed results of the newer run, with dbt's messages. */
  failures: { unique_id: string; status: string; message: string | null }[];
  /** v_runtime_regressions rows whose last run is the newer run. */
  regressions: { unique_id: string; last_s: number; baseline_median_s: number; trend_ratio: number }[];
  /** The newest plan recorded for the newer run's manifest, if any. */
  plan: { reuse: number; build: number } | null;
}

export interface MarkdownOptions {
  /** The most characters the text may have: GitHub refuses a comment over 65,536. */
  maxChars?: number;
  /** Where the whole report is (a CI artifact's URL), linked when lists are cut. */
  reportUrl?: string;
}

export const COMMENT_LIMIT = 65_536;
/** The lists are as long as the limit allows, tried longest first; none is ever longer than this. */
const LIST_LIMITS = [1000, 200, 50, 20, 5, 0];
const NAMES_PER_NODE = 5;

export function markdownSummary(input: MarkdownInput, options: MarkdownOptions = {}): string {
  const maxChars = options.maxChars ?? COMMENT_LIMIT;
  for (const limit of LIST_LIMITS) {
    const text = render(input, limit, options.reportUrl);
    if (text.length <= maxChars) return text;
  }
  // Not even the counts fit (a limit far below GitHub's): cut at a line, and say so.
  const text = render(input, 0, options.reportUrl);
  const cut = `\n… cut at ${maxChars} characters.\n`;
  return `${text.slice(0, Math.max(0, text.lastIndexOf('\n', maxChars - cut.length)))}${cut}`;
}

function render(input: MarkdownInput, limit: number, reportUrl: string | undefined): string {
  const { changes, short } = input;
  const lines = [MARKDOWN_MARKER, `### dbtattic: ${code(short(changes.from))} → ${code(short(changes.to))}`, ''];
  if (changes.from === changes.to)
    lines.push(
      `**Note**: the earlier and the later run are the same run (${code(short(changes.to))}): nothing can differ. Leave out --from to compare with the run before it.`,
      '',
    );
  if (changes.git.range) lines.push(`git ${code(changes.git.range.replace(/([0-9a-f]{7})[0-9a-f]*/g, '$1'))}`, '');
  lines.push(ranLine(input.ran), '');
  const cut = { any: false };
  const list = <T>(items: T[]): T[] => {
    if (items.length > limit) cut.any = true;
    return items.slice(0, limit);
  };
  lines.push(...nodeSection(changes, input.downstream, list), ...failureSection(input.failures, list), ...regressionSection(input.regressions, list));
  if (input.plan) lines.push(`**Plan**: ${input.plan.reuse} reuse, ${input.plan.build} build.`, '');
  if (cut.any)
    lines.push(
      `Lists cut to ${limit} to fit a comment. ${reportUrl ? `[The full report](${reportUrl.replace(/[()\s]/g, encodeURIComponent)})` : `The full lists: \`dbtattic diff ${short(changes.from)} ${short(changes.to)}\` and \`dbtattic report\``}.`,
      '',
    );
  return `${lines.join('\n').trimEnd()}\n`;
}

function ranLine(ran: Record<string, number> | null): string {
  if (!ran || Object.keys(ran).length === 0) return '**Ran**: no results (a parse, compile or docs run).';
  return `**Ran**: ${Object.entries(ran)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => `${n} ${code(status)}`)
    .join(', ')}.`;
}

type Cut = <T>(items: T[]) => T[];

function nodeSection(changes: Changes, downstream: Map<string, string[]>, list: Cut): string[] {
  // A side without a manifest: the node changes are unknown, never "none".
  // The reason is ours (diff's words and invocation ids), not an artifact's.
  if (changes.nodes === null) return [`**Nodes changed**: unknown (${firstLine(changes.unknown.nodes ?? 'a side has no manifest')}).`, ''];
  const kinds = Object.entries(changes.node_counts).sort(([a], [b]) => a.localeCompare(b));
  if (!kinds.length) return ['**Nodes changed**: none.', ''];
  const total = kinds.reduce((sum, [, n]) => sum + n, 0);
  const reached = new Set([...downstream.values()].flat());
  const impact = `**Downstream**: ${reached.size} node${reached.size === 1 ? '' : 's'} below the changes build with them (\`state:modified+\`).`;
  const out = [`**Nodes changed**: ${total}`, '', '| change | nodes |', '|---|---|', ...kinds.map(([kind, n]) => `| ${kind} | ${n} |`), '', impact, ''];
  const listed = list(changes.nodes).map((n) => `- ${code(String(n.unique_id))}: ${String(n.change)}${downstreamText(downstream.get(String(n.unique_id)))}`);
  return [...out, '<details><summary>Nodes</summary>', '', ...listed, ...more(changes.nodes.length, listed.length), '', '</details>', ''];
}

function downstreamText(below: string[] | undefined): string {
  if (!below?.length) return '';
  const names = below
    .slice(0, NAMES_PER_NODE)
    .map((id) => code(id))
    .join(', ');
  return `; downstream ${below.length}: ${names}${below.length > NAMES_PER_NODE ? ', …' : ''}`;
}

function failureSection(failures: MarkdownInput['failures'], list: Cut): string[] {
  if (!failures.length) return ['**Failures**: none.', ''];
  const listed = list(failures).map((f) => `- ${code(f.unique_id)} ${code(f.status)}${f.message ? `: ${code(firstLine(f.message))}` : ''}`);
  return [`**Failures**: ${failures.length}`, '', ...listed, ...more(failures.length, listed.length), ''];
}

function regressionSection(regressions: MarkdownInput['regressions'], list: Cut): string[] {
  if (!regressions.length) return ['**Runtime regressions**: none.', ''];
  const listed = list(regressions).map(
    (r) => `| ${code(r.unique_id, 'cell')} | ${r.last_s.toFixed(1)} s | ${r.baseline_median_s.toFixed(1)} s | ${r.trend_ratio.toFixed(1)}× |`,
  );
  return [
    `**Runtime regressions**: ${regressions.length}`,
    '',
    '| node | last | baseline | ratio |',
    '|---|---|---|---|',
    ...listed,
    ...more(regressions.length, listed.length),
    '',
  ];
}

function more(count: number, shown: number): string[] {
  return count > shown ? [`- … and ${count - shown} more`] : [];
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
