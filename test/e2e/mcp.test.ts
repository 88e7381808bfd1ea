import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeHistorySql } from '../../src/mcp/tools.js';
import { archiveDirOf } from '../helpers/archive-files.js';
import { BIN } from '../helpers/cli.js';
import { cleanEnv, replayedHistory, type ReplayedHistory } from '../helpers/replay.js';

/**
 * `dbtattic mcp` started as a child process and driven by the SDK's own client over stdio, on
 * the replayed fixture history: each tool must answer what the CLI's --json answers to the same
 * question, asked by a separate process.
 */
let replay: ReplayedHistory;
let client: Client;

/** A client of a server started here with `extra` flags (the shared one runs with --max-rows 50). */
async function startClient(extra: string[]): Promise<Client> {
  const started = new Client({ name: 'dbtattic-test', version: '0' });
  await started.connect(
    new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...extra], cwd: replay.project, env: cleanEnv(), stderr: 'pipe' }),
  );
  return started;
}

beforeAll(async () => {
  replay = await replayedHistory();
  client = await startClient(['--max-rows', '50']);
}, 300_000);

afterAll(async () => {
  await client?.close();
  replay?.remove();
});

type ToolOutput = { isError?: boolean; structuredContent?: Record<string, unknown>; content: Array<{ type: string; text?: string }> };
const callTool = async (name: string, args: Record<string, unknown> = {}): Promise<ToolOutput> =>
  (await client.callTool({ name, arguments: args })) as ToolOutput;
const cli = <T>(args: string[]): Promise<T> => replay.json<T>(args);
const errorText = (out: ToolOutput): string => out.content.map((c) => c.text ?? '').join('');

describe('dbtattic mcp', () => {
  it('lists the read-only tools, each with an input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'diff_runs',
      'explain',
      'inspect_run',
      'list_runs',
      'node_history',
      'plan',
      'query',
      'runtime_regressions',
      'state_path',
      'test_history',
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
  });

  it('list_runs answers what history --json does, filters included', async () => {
    expect((await callTool('list_runs', { limit: 50 })).structuredContent).toEqual({ runs: await cli(['history', '--json', '--limit', '50']) });
    const failed = await callTool('list_runs', { status: 'failed' });
    expect(failed.structuredContent).toEqual({ runs: await cli(['history', '--json', '--status', 'failed']) });
    expect((failed.structuredContent!.runs as unknown[]).length).toBeGreaterThan(0);
  });

  it('inspect_run and diff_runs answer what inspect and diff do', async () => {
    const [first, second] = [replay.steps[0]!.invocation_id, replay.steps[1]!.invocation_id];
    expect((await callTool('inspect_run', { invocation: second })).structuredContent).toEqual({ inspect: await cli(['inspect', second, '--json']) });
    expect((await callTool('inspect_run', { invocation: '@main' })).structuredContent).toEqual({ inspect: await cli(['inspect', '@main', '--json']) });
    expect((await callTool('diff_runs', { from: first, to: second })).structuredContent).toEqual({ diff: await cli(['diff', first, second, '--json']) });
  });

  it('node_history, test_history and runtime_regressions answer what the same SQL gives through query', async () => {
    const history = await callTool('node_history', { node: 'orders' });
    const sql = nodeHistorySql('orders');
    for (const key of ['versions', 'changes', 'runs'] as const) {
      expect(history.structuredContent![key]).toEqual(await cli(['query', '--json', '--limit', '50', '--', sql[key]]));
    }
    expect((history.structuredContent!.runs as unknown[]).length).toBeGreaterThan(0);
    expect((await callTool('test_history')).structuredContent).toEqual({
      tests: await cli(['query', '--json', '--limit', '50', '--', 'SELECT * FROM v_test_history WHERE true ORDER BY unique_id']),
    });
    expect((await callTool('runtime_regressions')).structuredContent).toEqual({
      regressions: await cli(['query', '--json', '--limit', '50', '--', 'SELECT * FROM v_runtime_regressions ORDER BY unique_id']),
    });
  });

  it("query answers what query --json does, within the server's row cap", async () => {
    const sql = 'select invocation_id, command from invocation order by invocation_id';
    // A list the limit cut says so: the CLI's stderr note, which an agent would not see.
    expect((await callTool('query', { sql, limit: 3 })).structuredContent).toEqual({
      rows: await cli(['query', '--json', '--limit', '3', sql]),
      truncated: { rows: 'showing the first 3 rows; raise limit for more' },
    });
    expect((await callTool('query', { sql: 'select 1 as one' })).structuredContent).toEqual({ rows: [{ one: 1 }] });
    const capped = await callTool('query', { sql: 'select * from range(1000)', limit: 100_000 });
    expect((capped.structuredContent!.rows as unknown[]).length).toBe(50);
    expect(capped.structuredContent!.truncated).toEqual({ rows: 'showing the first 50 rows; raise limit for more' });
  });

  it('plan and explain answer what plan --json and explain --json do, and record nothing', async () => {
    const plans = path.join(archiveDirOf(replay.project), 'records', 'plans');
    const recorded = (): string[] => (existsSync(plans) ? readdirSync(plans, { recursive: true }).map(String).sort() : []);
    const before = recorded();
    // A plan's id and the moment it was made are its own; every verdict must be the CLI's.
    const made = ({ plan_id: _id, made_at: _at, ...rest }: Record<string, unknown>): Record<string, unknown> => rest;
    const plan = await callTool('plan', { invocation: '@main', select: ['orders+'] });
    expect(made(plan.structuredContent!.plan as Record<string, unknown>)).toEqual(
      made(await cli(['plan', '--json', '--no-record', '--invocation', '@main', '--select', 'orders+'])),
    );
    expect((plan.structuredContent!.plan as { nodes: unknown[] }).nodes.length).toBeGreaterThan(0);
    expect((await callTool('explain', { node: 'orders', invocation: '@main' })).structuredContent).toEqual({
      explain: await cli(['explain', 'orders', '--json', '--invocation', '@main']),
    });
    expect(recorded()).toEqual(before);
    const unknown = await callTool('explain', { node: 'no_such_model', invocation: '@main' });
    expect(unknown.isError).toBe(true);
    expect(errorText(unknown)).toBe(
      (JSON.parse(replay.attic(['explain', 'no_such_model', '--json', '--invocation', '@main']).stdout) as { error: { message: string } }).error.message,
    );
  });

  it('stops a query past the time limit, says so, and keeps serving', async () => {
    const long = 'select count(*) from range(100000000) a, range(100000) b';
    const stopped = (seconds: number): string => `The query was stopped after ${seconds} s. Raise --timeout (seconds; 0: none), or narrow the query.`;
    const asked = await callTool('query', { sql: long, timeout_s: 1 });
    expect({ isError: asked.isError, text: errorText(asked) }).toEqual({ isError: true, text: stopped(1) });
    // An agent cannot raise the limit past the server's maximum.
    const capped = await startClient(['--max-seconds', '1']);
    try {
      const out = (await capped.callTool({ name: 'query', arguments: { sql: long, timeout_s: 3600 } })) as ToolOutput;
      expect({ isError: out.isError, text: errorText(out) }).toEqual({ isError: true, text: stopped(1) });
      const after = (await capped.callTool({ name: 'list_runs', arguments: { limit: 50 } })) as ToolOutput;
      expect(after.structuredContent).toEqual({ runs: await cli(['history', '--json', '--limit', '50']) });
    } finally {
      await capped.close();
    }
  }, 60_000);

  it("refuses a writing statement with the CLI's message", async () => {
    const sql = 'delete from invocation';
    const out = await callTool('query', { sql });
    expect(out.isError).toBe(true);
    const cliError = replay.attic(['query', '--json', sql]);
    expect(cliError.exitCode).not.toBe(0);
    expect(errorText(out)).toBe((JSON.parse(cliError.stdout) as { error: { message: string } }).error.message);
    expect((await cli<unknown[]>(['history', '--json', '--limit', '50'])).length).toBe(replay.steps.length);
  });

  it('refuses an argument that the CLI would read as an option (another store, help)', async () => {
    const other = { invocation: '--store=/elsewhere/store', at: '2030-01-01T00:00:00Z' };
    for (const [name, args] of [
      ['inspect_run', other],
      ['inspect_run', { invocation: '--help' }],
      ['diff_runs', { from: '-h', to: '@main' }],
      ['plan', { invocation: '@main', select: ['orders', '--store=/x'] }],
      ['explain', { node: '--version', invocation: '@main' }],
    ] as const) {
      const out = await callTool(name, args);
      expect(out.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(errorText(out)).toContain("may not start with '-'");
    }
  });

  it('answers a line that is not JSON with a parse error, goes on, and exits 0 when stdin closes', () => {
    const ran = spawnSync(process.execPath, [BIN, 'mcp'], {
      cwd: replay.project,
      env: cleanEnv(),
      input: 'not json\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n',
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(ran.status, ran.stderr).toBe(0);
    const lines = ran.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error: /) } },
      { jsonrpc: '2.0', id: 1, result: {} },
    ]);
  });

  it('refuses a request over --max-request-bytes with -32600 as it streams in, and goes on', () => {
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'query', arguments: { sql: `select '${'x'.repeat(20 * 1024 * 1024)}'` } },
    });
    const input = `${huge}\n{"jsonrpc":"2.0","id":8,"method":"ping"}\n`;
    const ran = spawnSync(process.execPath, [BIN, 'mcp'], {
      cwd: replay.project,
      env: cleanEnv(),
      input,
      encoding: 'utf8',
      timeout: 60_000,
      maxBuffer: 1 << 26,
    });
    expect(ran.status, ran.stderr).toBe(0);
    const lines = ran.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([
      { jsonrpc: '2.0', id: 7, error: { code: -32600, message: 'Request too large: over 1000000 bytes (dbtattic mcp --max-request-bytes); it was not read.' } },
      { jsonrpc: '2.0', id: 8, result: {} },
    ]);
  });

  it('cuts a query answer at --max-bytes and says so in truncated', async () => {
    const small = await startClient(['--max-bytes', '2000']);
    try {
      const out = (await small.callTool({ name: 'query', arguments: { sql: "select repeat('x', 500) AS v FROM range(100)" } })) as ToolOutput;
      const rows = out.structuredContent!.rows as unknown[];
      expect(rows.length).toBeGreaterThan(0);
      expect(Buffer.byteLength(JSON.stringify(rows))).toBeLessThanOrEqual(2000 + rows.length + 2);
      expect(rows.length).toBe(Math.floor(2000 / Buffer.byteLength(JSON.stringify({ v: 'x'.repeat(500) }))));
      expect(out.structuredContent!.truncated).toEqual({
        rows: `showing the first ${rows.length} rows, within 2000 bytes; the server answers no more at once: ask for fewer or shorter values`,
      });
    } finally {
      await small.close();
    }
  });

  it("gives the CLI's message for an unknown run id", async () => {
    const out = await callTool('inspect_run', { invocation: 'ffffffff' });
    expect(out.isError).toBe(true);
    const cliError = replay.attic(['inspect', 'ffffffff', '--json']);
    expect(errorText(out)).toBe((JSON.parse(cliError.stdout) as { error: { message: string } }).error.message);
  });

  it('state_path writes the directory state --json names', async () => {
    const out = await callTool('state_path', {});
    expect(out.structuredContent).toEqual({ state: await cli(['state', '--json']) });
  });

  it('describes every table and view with its columns and the words the schema gives them in the database', async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain('dbtattic://schema');
    expect(uris).toContain('dbtattic://schema/v_test_history');
    expect(resources.find((r) => r.uri === 'dbtattic://schema/v_test_history')?.description).toMatch(/^Per test:/);
    const read = await client.readResource({ uri: 'dbtattic://schema/invocation' });
    const doc = JSON.parse(String((read.contents[0] as { text: string }).text)) as {
      kind: string;
      description: string;
      columns: Array<{ name: string; description?: string }>;
    };
    expect(doc.kind).toBe('table');
    const [stored] = await cli<Array<{ comment: string }>>(['query', '--json', "select comment from duckdb_tables() where table_name = 'invocation'"]);
    expect(doc.description).toBe(stored!.comment);
    expect(doc.description).toMatch(/^One row per dbt invocation/);
    expect(doc.columns.find((c) => c.name === 'target_source')?.description).toMatch(/^Where `target` came from/);
    const columns = await cli<Array<{ column_name: string }>>([
      'query',
      '--json',
      "select column_name from information_schema.columns where table_name = 'invocation' order by ordinal_position",
    ]);
    expect(doc.columns.map((c) => c.name)).toEqual(columns.map((c) => c.column_name));
  });
});
