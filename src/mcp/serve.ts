import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { forgetWrittenBlobs } from '../archive/written-blobs.js';
import { resolveConfig, type AtticConfig, type ConfigInput } from '../config/resolve.js';
import { queryRows } from '../app/query.js';
import { isAtticError } from '../errors.js';
import { boundedRequests } from './request-bound.js';
import { COLUMNS_SQL, describeRelations, type RelationDoc } from './resources.js';
import { TOOLS, type QueryLimits, type ToolContext, type ToolSpec } from './tools.js';

export interface McpOptions extends QueryLimits {
  /** A request line past this many bytes is refused (request-bound.ts). */
  maxRequestBytes: number;
  cwd: string;
  env: Record<string, string | undefined>;
  /** --store, --project-dir, --target-path as given to `dbtattic mcp`: every tool call reads that store. */
  flags: Pick<ConfigInput['flags'], 'store' | 'projectDir' | 'targetPath'>;
  version: string;
}

export function createMcpServer(options: McpOptions): McpServer {
  // Read afresh at each call, as each CLI command does: dbtattic.yml may change while the server runs.
  const context: ToolContext = { config: () => resolveConfig({ flags: options.flags, env: options.env, cwd: options.cwd }), limits: options };
  const server = new McpServer({ name: 'dbtattic', version: options.version });
  const oneAtATime = serially();
  for (const tool of TOOLS) registerTool(server, tool, context, oneAtATime);
  registerSchemaResources(server, context.config, oneAtATime);
  return server;
}

type Serial = <T>(work: () => Promise<T>) => Promise<T>;

/** One answer at a time: two opening the store at once would each hold a DuckDB instance on one file. */
function serially(): Serial {
  let queue: Promise<unknown> = Promise.resolve();
  return (work) => {
    // Each answer lets go of the blobs it wrote, as a CLI command does when it ends (archive/written-blobs.ts).
    const next = queue.then(work).finally(forgetWrittenBlobs);
    queue = next.catch(() => undefined);
    return next;
  };
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
      process.stdout.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: `Parse error: ${error.message.split('\n')[0]}` } })}\n`,
      );
    }
    reported?.(error);
  };
}

function registerTool(server: McpServer, tool: ToolSpec, context: ToolContext, serial: Serial): void {
  server.registerTool(
    tool.name,
    { description: tool.description, inputSchema: tool.input, annotations: { readOnlyHint: true, openWorldHint: false } },
    (input: Record<string, unknown>) => serial(() => toolResult(tool, input, context)),
  );
}

/** The answer as structured content and as its JSON text; a failure as the message the CLI gives it. */
async function toolResult(tool: ToolSpec, input: Record<string, unknown>, context: ToolContext) {
  try {
    const value = await tool.answer(input, context);
    return { structuredContent: value, content: [{ type: 'text' as const, text: JSON.stringify(value, null, 2) }] };
  } catch (error) {
    return { isError: true, content: [{ type: 'text' as const, text: failureText(error) }] };
  }
}

function failureText(error: unknown): string {
  if (isAtticError(error)) return error.message;
  return `internal error: ${error instanceof Error ? error.message : String(error)}. Please report this.`;
}

function registerSchemaResources(server: McpServer, config: () => AtticConfig, serial: Serial): void {
  const relations = (): Promise<RelationDoc[]> =>
    serial(async () => describeRelations((await queryRows(config(), { sql: COLUMNS_SQL, limit: null, maxBytes: null, timeoutMs: null })).value.rows));
  server.registerResource(
    'schema',
    'dbtattic://schema',
    {
      title: 'The store: every table and view',
      description: 'Tables and views of the dbtattic store, their columns and what each holds',
      mimeType: 'application/json',
    },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(await relations(), null, 2) }] }),
  );
  server.registerResource(
    'relation',
    new ResourceTemplate('dbtattic://schema/{name}', {
      list: async () => ({
        resources: (await relations()).map((r) => ({
          uri: `dbtattic://schema/${r.name}`,
          name: r.name,
          description: r.description ?? undefined,
          mimeType: 'application/json',
        })),
      }),
    }),
    { title: 'One table or view of the store', mimeType: 'application/json' },
    async (uri, { name }) => {
      const found = (await relations()).find((r) => r.name === name);
      if (!found) throw new Error(`no table or view named ${String(name)} in the store; read dbtattic://schema for the list`);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(found, null, 2) }] };
    },
  );
}
