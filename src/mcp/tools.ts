import { z } from 'zod';

/**
 * Every tool the server offers, each a question the CLI already answers. `argv` is the command
 * line the CLI would be given (always with --json); `shape` names the answer's fields, since an
 * MCP tool's structured output is an object while several commands print a list.
 */
export interface QueryLimits {
  maxRows: number;
  /** The most bytes of rows (as JSON) one answer holds: 300 rows of 1 MB got no answer, the server at 2.7 GB. */
  maxBytes: number;
  /** The longest a query may run, in seconds (`query --timeout`); an agent may ask for less. */
  maxSeconds: number;
}

export interface ToolSpec {
  name: string;
  description: string;
  input: z.ZodRawShape;
  /** One or more command lines; each answer lands under its key of the result. */
  commands: (input: Record<string, unknown>, limits: QueryLimits) => Record<string, string[]>;
}

/**
 * A value the CLI is handed as an argument. One starting with '-' would be read as an option
 * (`--store=/elsewhere` reads another store, `--help` answers with help): no id, name, branch,
 * target or selector starts so.
 */
const word = () => z.string().min(1).regex(/^[^-]/, "may not start with '-'");
const ref = word().describe('an invocation id, a unique prefix of one, or @branch for its latest');
const optional = (description: string) => word().optional().describe(description);

/** A literal for SQL the tools write themselves; the query runs in the read-only sandbox anyway. */
export function sqlString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** A variadic option, its values after it: `--select a b`. */
function list(name: string, values: unknown): string[] {
  return Array.isArray(values) && values.length > 0 ? [name, ...values.map(String)] : [];
}

function flag(name: string, value: unknown): string[] {
  if (value === undefined || value === null || value === false) return [];
  return value === true ? [name] : [name, String(value)];
}

/** `query --json` with the rows and seconds asked for, never more than the server allows. */
function sql(text: string, limits: QueryLimits, rows = limits.maxRows, seconds = limits.maxSeconds): string[] {
  return ['query', '--json', '--limit', String(Math.min(rows, limits.maxRows)), '--max-bytes', String(limits.maxBytes), '--timeout', String(Math.min(seconds, limits.maxSeconds)), '--', text];
}

/** The flags `plan` and `explain` share, from a tool's input. */
function planFlags(i: Record<string, unknown>): string[] {
  return ['--invocation', String(i.invocation), ...flag('--target', i.target), ...flag('--branch', i.branch), ...flag('--defer-to', i.defer_to)];
}

const planInput = {
  invocation: ref.describe('the dbt parse or compile whose manifest is planned: an invocation id, a unique prefix or @branch (the server captures nothing, so target/ is planned only once captured)'),
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
    commands: (i) => ({
      runs: ['history', '--json', ...flag('--limit', i.limit), ...flag('--target', i.target), ...flag('--command', i.command), ...flag('--status', i.status), ...flag('--branch', i.branch)],
    }),
  },
  {
    name: 'inspect_run',
    description: 'The code (git, fingerprint), data (catalog snapshot) and run behind one invocation, and what changed since the previous run on its branch and target (dbtattic inspect).',
    input: { invocation: ref.optional(), at: optional('instead: the latest invocation at or before this ISO-8601 time') },
    commands: (i) => ({ inspect: ['inspect', ...(i.invocation ? [String(i.invocation)] : []), ...flag('--at', i.at), '--json'] }),
  },
  {
    name: 'diff_runs',
    description: 'What changed between two invocations: nodes added, removed and changed by kind, statuses, runtimes, git range, catalog snapshot (dbtattic diff).',
    input: { from: ref, to: ref },
    commands: (i) => ({ diff: ['diff', String(i.from), String(i.to), '--json'] }),
  },
  {
    name: 'node_history',
    description: "One node's history, by unique_id or name: its distinct versions, its changes by kind between manifests, and every run with status and runtime.",
    input: { node: word().describe('a unique_id (model.shop.orders) or a name (orders)') },
    commands: (i, limits) => Object.fromEntries(Object.entries(nodeHistorySql(String(i.node))).map(([key, text]) => [key, sql(text, limits)])),
  },
  {
    name: 'test_history',
    description: 'Per test: pass/warn/fail/error/skip counts, last status, last failure, flaky (v_test_history).',
    input: { test: optional('only tests whose unique_id or name is this'), flaky_only: z.boolean().optional().describe('only flaky tests') },
    commands: (i, limits) => ({
      tests: sql(`SELECT * FROM v_test_history WHERE true${i.test ? ` AND (unique_id = ${sqlString(String(i.test))} OR name = ${sqlString(String(i.test))})` : ''}${i.flaky_only ? ' AND flaky' : ''} ORDER BY unique_id`, limits),
    }),
  },
  {
    name: 'runtime_regressions',
    description: 'Nodes whose last run is much slower than their baseline (v_runtime_regressions).',
    input: {},
    commands: (_i, limits) => ({ regressions: sql('SELECT * FROM v_runtime_regressions ORDER BY unique_id', limits) }),
  },
  {
    name: 'plan',
    description: 'For an archived manifest: which models, seeds, snapshots and tests can be reused and which must build, each with its reason (dbtattic plan, not recorded).',
    input: {
      ...planInput,
      select: z.array(word()).optional().describe("dbt's simple selectors: names, tag:, path:, resource_type:, + and n+ operators"),
      exclude: z.array(word()).optional().describe('the same forms, taken out'),
    },
    commands: (i) => ({
      plan: ['plan', '--json', '--no-record', ...planFlags(i), ...list('--select', i.select), ...list('--exclude', i.exclude)],
    }),
  },
  {
    name: 'explain',
    description: "One node's plan verdict with each check behind it: old value, new value, result (dbtattic explain).",
    input: { node: word().describe('a name, selector or unique_id'), ...planInput },
    commands: (i) => ({ explain: ['explain', String(i.node), '--json', ...planFlags(i)] }),
  },
  {
    name: 'query',
    description: 'Read-only SQL on the store (tables and views: see the dbtattic://schema resource). Writes are refused; rows and time are capped by the server, and a query past the time limit is stopped.',
    input: {
      sql: z.string().min(1).describe('one read-only statement'),
      limit: z.number().int().positive().optional().describe('at most this many rows (capped by the server)'),
      timeout_s: z.number().int().positive().optional().describe('stop the query after this many seconds (capped by the server)'),
    },
    commands: (i, limits) => ({ rows: sql(String(i.sql), limits, Number(i.limit ?? limits.maxRows), Number(i.timeout_s ?? limits.maxSeconds)) }),
  },
  {
    name: 'state_path',
    description: "Write a directory that dbt's --state accepts (manifest, run results, sources) and give its path: the last success by default, or a given invocation (dbtattic state).",
    input: {
      invocation: ref.optional(),
      target: optional('only invocations run against this dbt target'),
      branch: optional("only this line of history (falls back to the branch's base)"),
    },
    commands: (i) => ({ state: ['state', '--json', ...flag('--invocation', i.invocation), ...flag('--target', i.target), ...flag('--branch', i.branch)] }),
  },
];
