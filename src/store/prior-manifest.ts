import type { DuckDBConnection } from '@duckdb/node-api';
import type { PriorManifest, PriorNode } from '../extract/index.js';

/**
 * What the newest manifest the store holds said of its nodes and macros, for a manifest being
 * ingested to carry its fingerprints over (extract/fingerprint-reuse.ts decides where that is
 * exact). Any stored manifest would be correct; the newest is the likeliest to share most.
 * Read from the rows of that one invocation, so it costs a project's size, never its history's.
 */
export async function readPriorManifest(connection: DuckDBConnection, invocationId: string): Promise<PriorManifest | undefined> {
  const newest = await connection.runAndReadAll(
    `SELECT a.invocation_id, i.adapter_type FROM artifact_capture AS a JOIN invocation AS i USING (invocation_id)
     WHERE a.artifact_type = 'manifest' AND a.invocation_id <> $1
     ORDER BY a.captured_at DESC, a.invocation_id DESC LIMIT 1`,
    [invocationId],
  );
  const [prior, adapterType] = newest.getRows()[0] ?? [];
  if (prior === undefined) return undefined;
  return { adapterType: adapterType === null ? null : String(adapterType), macros: await readMacros(connection, String(prior)), nodes: await readNodes(connection, String(prior)) };
}

async function readMacros(connection: DuckDBConnection, invocationId: string): Promise<Map<string, string>> {
  const rows = await readJoined(connection, ['unique_id', 'macro_version_id'], 'macro_invocation WHERE invocation_id = $1', invocationId);
  return new Map(rows.map(([id, version]) => [id!, version!]));
}

async function readNodes(connection: DuckDBConnection, invocationId: string): Promise<Map<string, PriorNode>> {
  const listed = new Map<string, string[]>();
  for (const [id, macro] of await readJoined(connection, ['unique_id', 'depends_on_id'], "node_depends_on WHERE invocation_id = $1 AND kind = 'macro'", invocationId)) {
    listed.set(id!, [...(listed.get(id!) ?? []), macro!]);
  }
  const rows = await readJoined(connection, ['unique_id', 'node_version_id', 'fingerprint'], 'node_invocation WHERE invocation_id = $1 AND fingerprint IS NOT NULL', invocationId);
  return new Map(rows.map(([id, version, fingerprint]) => [id!, { nodeVersionId: version!, fingerprint: fingerprint!, macros: listed.get(id!) ?? [] }]));
}

const FIELD = '\x1f';
const ROW = '\x1e';

/**
 * The rows of a table's `columns` (every one a string, never null) where `fromWhere` says, fetched as one string: DuckDB's client took 100-200 ms
 * to hand over 30,000 short strings as values, and 10 ms as one. A row with a separator in a
 * field is left out (no dbt id holds one): a node left out is fingerprinted afresh, and an edge
 * left out makes its node's listed macros differ, which does too.
 */
async function readJoined(connection: DuckDBConnection, columns: readonly string[], fromWhere: string, invocationId: string): Promise<string[][]> {
  const clean = columns.map((c) => `NOT contains(${c}, chr(30)) AND NOT contains(${c}, chr(31))`).join(' AND ');
  const reader = await connection.runAndReadAll(`SELECT string_agg(concat_ws(chr(31), ${columns.join(', ')}), chr(30)) FROM ${fromWhere} AND ${clean}`, [invocationId]);
  const joined = reader.getRows()[0]?.[0];
  if (typeof joined !== 'string' || joined === '') return [];
  return joined.split(ROW).map((row) => row.split(FIELD));
}
