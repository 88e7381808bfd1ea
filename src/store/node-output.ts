import type { DuckDBConnection } from '@duckdb/node-api';
import { readBlob, type Backend } from '../archive/index.js';
import { AtticError } from '../errors.js';
import { maskSecretShapes } from '../vocab/index.js';
import { resolveInvocationRef } from './compare.js';

/**
 * What one node ran in one invocation: its compiled SQL and run statement as dbt wrote them
 * under target/ (node_sql), and the lines of the invocation's dbt.log that name it.
 */
export interface NodeOutput {
  invocation_id: string;
  unique_id: string;
  compiled: SqlText | null;
  run: SqlText | null;
  /** Lines of the log slice that name the node, each with the continuation lines of its message. */
  log: string[] | null;
}

export interface SqlText {
  path: string;
  object_id: string;
  sql: string;
}

export interface NodeOutputRef {
  node: string;
  invocation?: string;
  at?: string;
}

export async function readNodeOutput(connection: DuckDBConnection, backend: Backend, ref: NodeOutputRef): Promise<NodeOutput> {
  const uniqueId = await resolveNode(connection, ref.node);
  const invocationId = ref.invocation !== undefined || ref.at !== undefined ? await resolveInvocationRef(connection, { id: ref.invocation, at: ref.at }) : await latestWithSql(connection, uniqueId);
  const files = await query(connection, 'SELECT kind, path, object_id FROM node_sql WHERE invocation_id = $1 AND unique_id = $2', [invocationId, uniqueId]);
  const text = async (kind: string): Promise<SqlText | null> => {
    const row = files.find((f) => f.kind === kind);
    return row ? { path: String(row.path), object_id: String(row.object_id), sql: (await readBlob(backend, String(row.object_id))).toString('utf8') } : null;
  };
  return { invocation_id: invocationId, unique_id: uniqueId, compiled: await text('compiled'), run: await text('run'), log: await nodeLogLines(connection, backend, invocationId, uniqueId) };
}

/** A unique_id, or a name that only one node with SQL has. */
async function resolveNode(connection: DuckDBConnection, node: string): Promise<string> {
  const exact = await query(connection, 'SELECT DISTINCT unique_id FROM node_sql WHERE unique_id = $1', [node]);
  if (exact[0]) return node;
  const named = (await query(connection, "SELECT DISTINCT unique_id FROM node_sql WHERE split_part(unique_id, '.', 3) = $1 ORDER BY 1", [node])).map((r) => String(r.unique_id));
  if (named.length === 1) return named[0]!;
  if (named.length > 1) throw new AtticError('usage', `'${node}' names several nodes: ${named.join(', ')}. Give the unique_id.`);
  throw new AtticError('not-found', `No SQL is archived for a node '${node}'. Name a model, test, seed or snapshot by name or unique_id; SQL is kept from the first capture after dbt wrote it.`);
}

async function latestWithSql(connection: DuckDBConnection, uniqueId: string): Promise<string> {
  const found = await query(
    connection,
    `SELECT s.invocation_id FROM node_sql AS s LEFT JOIN invocation AS i USING (invocation_id)
     WHERE s.unique_id = $1 ORDER BY coalesce(i.completed_at, i.generated_at) DESC NULLS LAST, i.run_id DESC NULLS LAST LIMIT 1`,
    [uniqueId],
  );
  return String(found[0]!.invocation_id);
}

/** dbt's debug lines start with a time; a line without one continues the message before it. */
const RECORD_START = /^(\d\d:\d\d:\d\d(\.\d+)? |\{|={30})/;

async function nodeLogLines(connection: DuckDBConnection, backend: Backend, invocationId: string, uniqueId: string): Promise<string[] | null> {
  const slice = await query(connection, "SELECT object_id FROM invocation_output WHERE invocation_id = $1 AND output = 'log' AND authoritative", [invocationId]);
  if (!slice[0]) return null;
  const lines = (await readBlob(backend, String(slice[0].object_id))).toString('utf8').split('\n');
  const out: string[] = [];
  let following = false;
  for (const line of lines) {
    if (RECORD_START.test(line)) following = line.includes(uniqueId);
    else if (line === '') following = false;
    if (following) out.push(maskSecretShapes(line));
  }
  return out;
}

async function query(connection: DuckDBConnection, sql: string, params: string[]): Promise<Record<string, unknown>[]> {
  return (await connection.runAndReadAll(sql, params)).getRowObjectsJson() as Record<string, unknown>[];
}
