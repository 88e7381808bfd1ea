import { z } from 'zod';
import type { AtticConfig } from '../config/resolve.js';
import {
  diffOf,
  explainOf,
  handOutState,
  historyOf,
  inspectOf,
  makePlan,
  noticeLines,
  queryRows,
  type PlanOptions,
  type QueryRowsAnswer,
  type ReadNotice,
} from '../app/index.js';
import { countOf } from '../vocab/index.js';

/**
 * Every tool the server offers, each a question the CLI answers too, put to the same typed core
 * (src/app/). An MCP tool's structured output is an object, so each answer's parts have keys.
 */
export interface QueryLimits {
  maxRows: number;
  /** The most bytes of rows (as JSON) one answer holds: 300 rows of 1 MB got no answer, the server at 2.7 GB. */
  maxBytes: number;
  /** The longest a query may run, in seconds (`query --timeout`); an agent may ask for less. */
  maxSeconds: number;
}

/** What a tool call is answered with: the store's configuration, read afresh, and the server's limits. */
export interface ToolContext {
  config: () => AtticConfig;
  limits: QueryLimits;
}

export interface ToolSpec {
  name: string;
  description: string;
  input: z.ZodRawShape;
  /** The answer's parts, each under its key; `truncated` says, per key, what a limit left out. */
  answer: (input: Record<string, unknown>, context: ToolContext) => Promise<Record<string, unknown>>;
}

/**
 * A value an agent names: no id, name, branch, target or selector starts with '-', and one that
 * does is a flag typed where a value belongs (`--store=/elsewhere`), refused as the CLI would.
 */
const word = () => z.string().min(1).regex(/^[^-]/, "may not start with '-'");
const ref = word().describe('an invocation id, a unique prefix of one, or @branch for its latest');
const optional = (description: string) => word().optional().describe(description);

/** A literal for SQL the tools write themselves; the query runs in the read-only sandbox anyway. */
export function sqlString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

const text = (value: unknown): string | undefined => (value === undefined || value === null ? undefined : String(value));
const words = (value: unknown): string[] | undefined => (Array.isArray(value) && value.length > 0 ? value.map(String) : undefined);

/** Read-only SQL with the rows and seconds asked for, never more than the server allows; each answer under its key. */
async function queries(
  context: ToolContext,
  statements: Record<string, string>,
  rows = context.limits.maxRows,
  seconds = context.limits.maxSeconds,
): Promise<Record<string, unknown>> {
  const { limits } = context;
  const config = context.config();
  const request = { limit: Math.min(rows, limits.maxRows), maxBytes: limits.maxBytes, timeoutMs: Math.min(seconds, limits.maxSeconds) * 1000 };
  const answer: Record<string, unknown> = {};
  const truncated: Record<string, string> = {};
  let notice: ReadNotice | null = null;
  for (const [key, sql] of Object.entries(statements)) {
    const answered = await queryRows(config, { sql, ...request });
    answer[key] = answered.value.rows;
    notice = answered.notice ?? notice;
    const cut = truncation(answered.value, request);
    if (cut) truncated[key] = cut;
  }
  return { ...answer, ...(Object.keys(truncated).length > 0 ? { truncated } : {}), ...warnings(notice) };
}

/**
 * What the read said beside its answer that an agent must know: the archive is damaged and the
 * answer leaves something out, or the store was read behind the archive. The CLI says it on
 * stderr (and exits 1); an agent sees only the answer.
 */
function warnings(notice: ReadNotice | null): { warnings?: string[] } {
  const said = noticeLines(notice).filter((line) => line.level === 'warning');
  return said.length > 0 ? { warnings: said.map((line) => line.text) } : {};
}

/** What a limit left out of a query's rows, said to an agent: without it, the first rows pass for all of them. */
function truncation({ outcome }: QueryRowsAnswer, request: { limit: number; maxBytes: number }): string | null {
  if (outcome.cutBy === 'bytes')
    return `showing the first ${countOf(outcome.rows, 'row')}, within ${countOf(request.maxBytes, 'byte')}; the server answers no more at once: ask for fewer or shorter values`;
  return outcome.truncated ? `showing the first ${countOf(request.limit, 'row')}; raise limit for more` : null;
}

/** What `plan` and `explain` share, from a tool's input: an archived manifest, never recorded. */
function planOptions(i: Record<string, unknown>): PlanOptions {
  return {
    invocation: String(i.invocation),
    from: 'named',
    target: text(i.target),
    branch: text(i.branch),
    deferTo: text(i.defer_to),
    select: words(i.select),
    exclude: words(i.exclude),
    record: false,
  };
}

const planInput = {
  invocation: ref.describe(
    'the dbt parse or compile whose manifest is planned: an invocation id, a unique prefix or @branch (the server captures nothing, so target/ is planned only once captured)',
  ),
  target: optional("count only builds on this dbt target (default: the invocation's)"),
  branch: optional("count only builds on this line of history (default: the invocation's)"),
  defer_to: optional("nodes never built on the branch may reuse this branch's builds"),
};

/** The SQL behind node_history, one statement per part of the answer. */
export function nodeHistorySql(node: string): Record<'versions' | 'changes' | 'runs', string> {
  const match = (alias = ''): string => `(${alias}unique_id = ${sqlString(node)} OR ${alias}name = ${sqlString(node)})`;
  return {
    versions: `SELECT n.unique_id, n.node_version_id, n.fingerprint, min(s.invoked_at) AS first_seen, max(s.invoked_at) AS last_seen, count(*) AS invocations
      FROM node AS n JOIN v_invocation_sequence AS s USING (invocation_id) WHERE ${match('n.')}
      GROUP BY ALL ORDER BY first_seen, n.node_version_id`,
    changes: `SELECT to_invocation, to_seq, change_kind, what_changed, changed_macros FROM v_node_changes
      WHERE unique_id IN (SELECT DISTINCT unique_id FROM node WHERE ${match()}) ORDER BY to_seq, unique_id`,
    runs: `SELECT invocation_id, seq, invoked_at, command, target, branch, git_sha, unique_id, status, execution_time, rows_affected, message, fingerprint
      FROM v_run_history WHERE ${match()} ORDER BY seq, unique_id`,
  };
}

export const TOOLS: ToolSpec[] = [
  {
    name: 'list_runs',
    description: 'Recent dbt invocations, newest first: when, command, target, results by status, duration, git sha, branch (dbtattic history).',
    input: {
      limit: z.number().int().positive().optional().describe('how many (default 20)'),
      target: optional('only this dbt target'),
      command: optional('only this dbt command (build, run, test, …)'),
      status: z.enum(['ok', 'failed', 'none']).optional().describe('ok: results, none failed; failed: some error or fail; none: no results'),
      branch: optional('only this line of history'),
    },
    answer: async (i, { config }) => {
      const filter = {
        limit: Number(i.limit ?? 20),
        target: text(i.target),
        command: text(i.command),
        status: i.status as 'ok' | 'failed' | 'none' | undefined,
        branch: text(i.branch),
      };
      const { value, notice } = await historyOf(config(), filter, false);
      const cut =
        value.matched > value.rows.length
          ? { truncated: { runs: `showing the newest ${value.rows.length} of ${countOf(value.matched, 'matching invocation')}; raise limit for more` } }
          : {};
      return { runs: value.rows, ...cut, ...warnings(notice) };
    },
  },
  {
    name: 'inspect_run',
    description:
      'The code (git, fingerprint), data (catalog snapshot) and run behind one invocation, and what changed since the previous run on its branch and target (dbtattic inspect).',
    input: { invocation: ref.optional(), at: optional('instead: the latest invocation at or before this ISO-8601 time') },
    answer: async (i, { config }) => {
      const { value, notice } = await inspectOf(config(), { ref: text(i.invocation), at: text(i.at), nearest: false });
      return { inspect: value.report, ...warnings(notice) };
    },
  },
  {
    name: 'diff_runs',
    description:
      'What changed between two invocations: nodes added, removed and changed by kind, statuses, runtimes, git range, catalog snapshot (dbtattic diff).',
    input: { from: ref, to: ref },
    answer: async (i, { config }) => {
      const { value, notice } = await diffOf(config(), { from: String(i.from), to: String(i.to), nearest: false });
      return { diff: value.changes, ...warnings(notice) };
    },
  },
  {
    name: 'node_history',
    description:
      "One node's history, by unique_id or name: its distinct versions, its changes by kind between manifests, and every run with status and runtime.",
    input: { node: word().describe('a unique_id (model.shop.orders) or a name (orders)') },
    answer: (i, context) => queries(context, nodeHistorySql(String(i.node))),
  },
  {
    name: 'test_history',
    description: 'Per test: pass/warn/fail/error/skip counts, last status, last failure, flaky (v_test_history).',
    input: { test: optional('only tests whose unique_id or name is this'), flaky_only: z.boolean().optional().describe('only flaky tests') },
    answer: (i, context) =>
      queries(context, {
        tests: `SELECT * FROM v_test_history WHERE true${i.test ? ` AND (unique_id = ${sqlString(String(i.test))} OR name = ${sqlString(String(i.test))})` : ''}${i.flaky_only ? ' AND flaky' : ''} ORDER BY unique_id`,
      }),
  },
  {
    name: 'runtime_regressions',
    description: 'Nodes whose last run is much slower than their baseline (v_runtime_regressions).',
    input: {},
    answer: (_i, context) => queries(context, { regressions: 'SELECT * FROM v_runtime_regressions ORDER BY unique_id' }),
  },
  {
    name: 'plan',
    description:
      'For an archived manifest: which models, seeds, snapshots and tests can be reused and which must build, each with its reason (dbtattic plan, not recorded).',
    input: {
      ...planInput,
      select: z.array(word()).optional().describe("dbt's simple selectors: names, tag:, path:, resource_type:, + and n+ operators"),
      exclude: z.array(word()).optional().describe('the same forms, taken out'),
    },
    answer: async (i, { config }) => ({ plan: await makePlan(config(), planOptions(i)) }),
  },
  {
    name: 'explain',
    description: "One node's plan verdict with each check behind it: old value, new value, result (dbtattic explain).",
    input: { node: word().describe('a name, selector or unique_id'), ...planInput },
    answer: async (i, { config }) => ({ explain: await explainOf(config(), String(i.node), planOptions(i)) }),
  },
  {
    name: 'query',
    description:
      'Read-only SQL on the store (tables and views: see the dbtattic://schema resource). Writes are refused; rows and time are capped by the server, and a query past the time limit is stopped.',
    input: {
      sql: z.string().min(1).describe('one read-only statement'),
      limit: z.number().int().positive().optional().describe('at most this many rows (capped by the server)'),
      timeout_s: z.number().int().positive().optional().describe('stop the query after this many seconds (capped by the server)'),
    },
    answer: (i, context) =>
      queries(context, { rows: String(i.sql) }, Number(i.limit ?? context.limits.maxRows), Number(i.timeout_s ?? context.limits.maxSeconds)),
  },
  {
    name: 'state_path',
    description:
      "Write a directory that dbt's --state accepts (manifest, run results, sources) and give its path: the last success by default, or a given invocation (dbtattic state).",
    input: {
      invocation: ref.optional(),
      target: optional('only invocations run against this dbt target'),
      branch: optional("only this line of history (falls back to the branch's base)"),
    },
    answer: async (i, { config }) => ({
      state: (await handOutState(config(), { invocation: text(i.invocation), target: text(i.target), branch: text(i.branch) })).answer,
    }),
  },
];
