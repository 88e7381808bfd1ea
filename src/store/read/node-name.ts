import type { DuckDBConnection } from '@duckdb/node-api';
import { AtticError } from '../../errors.js';
import { nearestNames } from '../../vocab/index.js';

/** What dbt compiles or runs SQL for: the nodes `show` can be asked about. */
const WITH_SQL = "('model', 'test', 'seed', 'snapshot', 'analysis', 'operation', 'unit_test')";

/**
 * The node a name or unique_id names, among those any archived manifest or SQL file knows. A
 * name no node has is most often a typo, told apart from a node with nothing archived: refused
 * as usage (exit 2), with the names nearest to it.
 */
export async function resolveNodeName(connection: DuckDBConnection, node: string): Promise<string> {
  const known = await rows(
    connection,
    `SELECT DISTINCT unique_id FROM node_sql WHERE unique_id = $1 OR split_part(unique_id, '.', 3) = $1
     UNION SELECT DISTINCT unique_id FROM node_version WHERE resource_type IN ${WITH_SQL} AND (unique_id = $1 OR name = $1)
     ORDER BY 1`,
    [node],
  );
  const ids = known.map((r) => String(r.unique_id));
  if (ids.includes(node)) return node;
  if (ids.length === 1) return ids[0]!;
  if (ids.length > 1) throw new AtticError('usage', `'${node}' names several nodes: ${ids.join(', ')}. Give the unique_id.`);
  throw await unknownNode(connection, node);
}

async function unknownNode(connection: DuckDBConnection, node: string): Promise<AtticError> {
  const column = node.includes('.') ? 'unique_id' : 'name';
  const names = (
    await rows(connection, `SELECT DISTINCT ${column} AS name FROM node_version WHERE resource_type IN ${WITH_SQL} AND ${column} IS NOT NULL ORDER BY 1`, [])
  ).map((r) => String(r.name));
  const nearest = nearestNames(node, names, 5);
  const hint = nearest.length > 0 ? ` Did you mean ${nearest.map((n) => `'${n}'`).join(', ')}?` : ' Name a model, test, seed or snapshot by name or unique_id.';
  return new AtticError('usage', `No archived manifest or SQL file has a node '${node}'.${hint}`, { nearest });
}

async function rows(connection: DuckDBConnection, sql: string, params: string[]): Promise<Record<string, unknown>[]> {
  return (await connection.runAndReadAll(sql, params)).getRowObjectsJson() as Record<string, unknown>[];
}
