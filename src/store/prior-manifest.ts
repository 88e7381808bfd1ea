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
  const reader = await connection.runAndReadAll('SELECT unique_id, macro_version_id FROM macro_invocation WHERE invocation_id = $1', [invocationId]);
  return new Map(reader.getRows().map(([id, version]) => [String(id), String(version)]));
}

async function readNodes(connection: DuckDBConnection, invocationId: string): Promise<Map<string, PriorNode>> {
  const reader = await connection.runAndReadAll(
    `SELECT ni.unique_id, ni.node_version_id, ni.fingerprint, coalesce(list(d.depends_on_id) FILTER (WHERE d.depends_on_id IS NOT NULL), []) AS macros
     FROM node_invocation AS ni
     LEFT JOIN node_depends_on AS d ON d.invocation_id = ni.invocation_id AND d.unique_id = ni.unique_id AND d.kind = 'macro'
     WHERE ni.invocation_id = $1 AND ni.fingerprint IS NOT NULL
     GROUP BY ALL`,
    [invocationId],
  );
  const nodes = new Map<string, PriorNode>();
  for (const [id, version, fingerprint, macros] of reader.getRows()) {
    nodes.set(String(id), { nodeVersionId: String(version), fingerprint: String(fingerprint), macros: listOf(macros) });
  }
  return nodes;
}

/** A DuckDB LIST value as strings. */
function listOf(value: unknown): string[] {
  const items = (value as { items?: unknown[] } | null)?.items;
  return Array.isArray(items) ? items.map(String) : [];
}
