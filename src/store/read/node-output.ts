import type { DuckDBConnection } from '@duckdb/node-api';
import { readBlob, type Backend } from '../../archive/index.js';
import { AtticError } from '../../errors.js';
import { maskSecretShapes } from '../../vocab/index.js';
import { resolveInvocationRef } from './compare.js';
import { resolveNodeName } from './node-name.js';

/**
 * What one node ran in one invocation: its compiled SQL and run statement as dbt wrote them
 * under target/ (node_sql), the compiled SQL from its manifest when no file was archived, and
 * the lines of the invocation's dbt.log that name it.
 */
export interface NodeOutput {
  invocation_id: string;
  unique_id: string;
  compiled: SqlText | null;
  run: SqlText | null;
  /** Lines of the log slice that name the node, each with the continuation lines of its message. */
  log: string[] | null;
}

/** `from`: a file dbt wrote under target/ (path relative to it), or the manifest's compiled_code. */
export interface SqlText {
  from: 'target' | 'manifest';
  path: string;
  /** The file's bytes in the archive; null for the manifest's text. */
  object_id: string | null;
  sql: string;
}

export interface NodeOutputRef {
  node: string;
  invocation?: string;
  at?: string;
}

export async function readNodeOutput(connection: DuckDBConnection, backend: Backend, ref: NodeOutputRef): Promise<NodeOutput> {
  const uniqueId = await resolveNodeName(connection, ref.node);
  const invocationId =
    ref.invocation !== undefined || ref.at !== undefined
      ? await resolveInvocationRef(connection, { id: ref.invocation, at: ref.at })
      : await latestWithSql(connection, uniqueId);
  const files = await query(connection, 'SELECT kind, path, object_id FROM node_sql WHERE invocation_id = $1 AND unique_id = $2', [invocationId, uniqueId]);
  const text = async (kind: string): Promise<SqlText | null> => {
    const row = files.find((f) => f.kind === kind);
    return row
      ? { from: 'target', path: String(row.path), object_id: String(row.object_id), sql: (await readBlob(backend, String(row.object_id))).toString('utf8') }
      : null;
  };
  const compiled = (await text('compiled')) ?? (await manifestSql(connection, invocationId, uniqueId));
  return {
    invocation_id: invocationId,
    unique_id: uniqueId,
    compiled,
    run: await text('run'),
    log: await nodeLogLines(connection, backend, invocationId, uniqueId),
  };
}

/**
 * The invocation to show when none is named: the newest that wrote the node's SQL files or whose
 * manifest compiled it (dbt writes compiled_code there too, and a capture may have kept no
 * files: an older dbtattic, `capture.sql: false`, a target/ committed without them).
 */
async function latestWithSql(connection: DuckDBConnection, uniqueId: string): Promise<string> {
  const found = await query(
    connection,
    `SELECT s.invocation_id FROM (
       SELECT invocation_id, 0 AS from_manifest FROM node_sql WHERE unique_id = $1
       UNION ALL SELECT invocation_id, 1 FROM node_invocation WHERE unique_id = $1 AND compiled_code_id IS NOT NULL
     ) AS s LEFT JOIN invocation AS i USING (invocation_id)
     ORDER BY coalesce(i.completed_at, i.generated_at) DESC NULLS LAST, i.run_id DESC NULLS LAST, s.from_manifest LIMIT 1`,
    [uniqueId],
  );
  if (!found[0]) {
    throw new AtticError(
      'not-found',
      `No SQL is archived for ${uniqueId}: no file dbt wrote under target/compiled or target/run, and no manifest with its compiled code (dbt parse compiles nothing). Run dbt compile or build, captured.`,
    );
  }
  return String(found[0].invocation_id);
}

/** The SQL a manifest compiled the node to, when no file of the invocation was archived. */
async function manifestSql(connection: DuckDBConnection, invocationId: string, uniqueId: string): Promise<SqlText | null> {
  const found = await query(
    connection,
    'SELECT c.code FROM node_invocation AS n JOIN compiled_code AS c USING (compiled_code_id) WHERE n.invocation_id = $1 AND n.unique_id = $2 LIMIT 1',
    [invocationId, uniqueId],
  );
  return found[0] ? { from: 'manifest', path: 'manifest.json', object_id: null, sql: String(found[0].code) } : null;
}

/** dbt's debug lines start with a time; a line without one continues the message before it. */
const RECORD_START = /^(\d\d:\d\d:\d\d(\.\d+)? |\{|={30})/;

async function nodeLogLines(connection: DuckDBConnection, backend: Backend, invocationId: string, uniqueId: string): Promise<string[] | null> {
  const slice = await query(connection, "SELECT object_id FROM invocation_output WHERE invocation_id = $1 AND output = 'log' AND authoritative", [
    invocationId,
  ]);
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
