import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { readAnswers, type ToolAnswer } from './answer.js';
import { boundedRequests } from './request-bound.js';
import { cliCaller, type CliAnswer, type CliCaller } from './cli-call.js';
import { COLUMNS_SQL, describeRelations, type RelationDoc } from './resources.js';
import { TOOLS, type QueryLimits, type ToolSpec } from './tools.js';

export interface McpOptions extends QueryLimits {
  /** A request line past this many bytes is refused (request-bound.ts). */
  maxRequestBytes: number;
  cwd: string;
  env: Record<string, string | undefined>;
  /** --store, --project-dir, --target-path as given to `dbtattic mcp`: every tool call gets them. */
  globalArgs: string[];
  version: string;
}

export function createMcpServer(options: McpOptions): McpServer {
  const call = cliCaller(options.cwd, options.env, options.globalArgs);
  const server = new McpServer({ name: 'dbtattic', version: options.version });
  for (const tool of TOOLS) registerTool(server, tool, call, options);
  registerSchemaResources(server, call);
  return server;
}

/** Serves until the client closes stdin (the SDK's transport does not notice: the process ended with Node's exit 13). */
export async function serveMcp(options: McpOptions): Promise<void> {
  const server = createMcpServer(options);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  const write = (response: string): void => void process.stdout.write(response);
  const transport = new StdioServerTransport(boundedRequests(process.stdin, options.maxRequestBytes, write), process.stdout);
  await server.connect(transport);
  answerParseErrors(transport);
  process.stdin.once('end', () => void server.close());
  await closed;
}

/** A line that is not JSON-RPC gets JSON-RPC's parse error (-32700), not silence; the server goes on. */
function answerParseErrors(transport: StdioServerTransport): void {
  const reported = transport.onerror;
  transport.onerror = (error) => {
    if (error instanceof SyntaxError || error.name === 'ZodError') {
      // Written as it is: the SDK's message type has no id null, which JSON-RPC gives a parse error.
      process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: `Parse error: ${error.message.split('\n')[0]}` } })}\n`);
    }
    reported?.(error);
  };
}

function registerTool(server: McpServer, tool: ToolSpec, call: CliCaller, limits: QueryLimits): void {
  server.registerTool(
    tool.name,
    { description: tool.description, inputSchema: tool.input, annotations: { readOnlyHint: true, openWorldHint: false } },
    async (input: Record<string, unknown>) => toolResult(await ask(call, tool.commands(input, limits))),
  );
}

async function ask(call: CliCaller, commands: Record<string, string[]>): Promise<ToolAnswer> {
  const answers: Record<string, CliAnswer> = {};
  for (const [key, argv] of Object.entries(commands)) answers[key] = await call(argv);
  return readAnswers(answers);
}

function toolResult(answer: ToolAnswer) {
  if (!answer.ok) return { isError: true, content: [{ type: 'text' as const, text: answer.message }] };
  return { structuredContent: answer.value, content: [{ type: 'text' as const, text: JSON.stringify(answer.value, null, 2) }] };
}

function registerSchemaResources(server: McpServer, call: CliCaller): void {
  const relations = async (): Promise<RelationDoc[]> => {
    const answer = await ask(call, { columns: ['query', '--json', '--', COLUMNS_SQL] });
    if (!answer.ok) throw new Error(answer.message);
    return describeRelations(answer.value.columns as Array<Record<string, unknown>>);
  };
  server.registerResource(
    'schema',
    'dbtattic://schema',
    { title: 'The store: every table and view', description: 'Tables and views of the dbtattic store, their columns and what each holds', mimeType: 'application/json' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(await relations(), null, 2) }] }),
  );
  server.registerResource(
    'relation',
    new ResourceTemplate('dbtattic://schema/{name}', {
      list: async () => ({ resources: (await relations()).map((r) => ({ uri: `dbtattic://schema/${r.name}`, name: r.name, description: r.description ?? undefined, mimeType: 'application/json' })) }),
    }),
    { title: 'One table or view of the store', mimeType: 'application/json' },
    async (uri, { name }) => {
      const found = (await relations()).find((r) => r.name === name);
      if (!found) throw new Error(`no table or view named ${String(name)} in the store; read dbtattic://schema for the list`);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(found, null, 2) }] };
    },
  );
}
