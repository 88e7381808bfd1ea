import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTALLED_BIN, atticJson, installedHistory, lineEnv } from './installed.js';

/** The installed `dbtattic mcp` on this Node line, driven by the SDK's own client over stdio. */
let workDir: string;
let project: string;
let client: Client;

beforeAll(async () => {
  const replay = await installedHistory();
  ({ workDir, project } = replay);
  client = new Client({ name: 'dbtattic-smoke', version: '0' });
  await client.connect(new StdioClientTransport({ command: INSTALLED_BIN, args: ['mcp'], cwd: project, env: lineEnv(), stderr: 'pipe' }));
});
afterAll(async () => {
  await client?.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe('dbtattic mcp, installed', () => {
  it('lists its tools and answers list_runs as history --json does', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['list_runs', 'query', 'state_path']));
    const answer = (await client.callTool({ name: 'list_runs', arguments: { limit: 50 } })) as { structuredContent?: unknown };
    expect(answer.structuredContent).toEqual({ runs: atticJson(['history', '--limit', '50'], project) });
  });
});
