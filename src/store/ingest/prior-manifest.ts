import type { DuckDBConnection } from '@duckdb/node-api';
import type { NodeEntryRow, PriorManifest, PriorNode } from '../../extract/index.js';

/**
 * What the newest manifest the store holds said of its nodes and macros, for a manifest being
 * ingested to carry its fingerprints over (extract/fingerprint-reuse.ts decides where that is
 * exact). Any stored manifest would be correct; the newest is the likeliest to share most.
 * Read from the rows of that one invocation, so it costs a project's size, never its history's.
 */
export interface PriorReading {
  manifest?: PriorManifest;
  /** The node_entry memo's rows for the entries of that manifest's node versions, by digest. */
  entries: Map<string, NodeEntryRow>;
}

/**
 * What the manifest a catch-up ingested last said, carried to the next one: in a rebuild that
 * manifest is the prior of the next, and reading it back from the store was about 80 ms of each
 * invocation's ingest at 10,000 nodes for the memo rows and 100 ms for the nodes and macros. A
 * memo row is exact for its digest whatever manifest held it, and its nodes and macros are those
 * its ingest wrote, so what is carried serves when that manifest is the prior.
 */
export interface CarriedManifest {
  invocationId: string | null;
  /** The memo rows of its entries, by digest. */
  entries: Map<string, NodeEntryRow>;
  macros: Map<string, string>;
  nodes: Map<string, PriorNode>;
}

export function nothingCarried(): CarriedManifest {
  return { invocationId: null, entries: new Map(), macros: new Map(), nodes: new Map() };
}

export async function readPriorManifest(connection: DuckDBConnection, invocationId: string, carried?: CarriedManifest): Promise<PriorReading> {
  const newest = await connection.runAndReadAll(
    `SELECT a.invocation_id, i.adapter_type FROM artifact_capture AS a JOIN invocation AS i USING (invocation_id)
     WHERE a.artifact_type = 'manifest' AND a.invocation_id <> $1
     ORDER BY a.captured_at DESC, a.invocation_id DESC LIMIT 1`,
    [invocationId],
  );
  const [prior, adapterType] = newest.getRows()[0] ?? [];
  if (prior === undefined) return { entries: new Map() };
  const held = carried?.invocationId === String(prior) ? carried : undefined;
  const manifest = {
    adapterType: adapterType === null ? null : String(adapterType),
    macros: held?.macros ?? (await readMacros(connection, String(prior))),
    nodes: held?.nodes ?? (await readNodes(connection, String(prior))),
  };
  return { manifest, entries: held?.entries ?? (await readEntries(connection, String(prior))) };
}

/**
 * Entries of the versions that manifest holds: the next one repeats most of its entries, and a
 * version can have several (compiled for other targets); an entry not found is parsed as new.
 */
async function readEntries(connection: DuckDBConnection, invocationId: string): Promise<Map<string, NodeEntryRow>> {
  const rows = await readJoined(
    connection,
    ENTRY_COLUMNS,
    'node_entry WHERE node_version_id IN (SELECT node_version_id FROM node_invocation WHERE invocation_id = $1)',
    invocationId,
  );
  const entries = new Map<string, NodeEntryRow>();
  for (const [digest, uniqueId, version, relation, compiled, nodes, macros] of rows) {
    entries.set(digest!, {
      entry_digest: digest!,
      unique_id: uniqueId!,
      node_version_id: version!,
      relation_name: relation!,
      compiled_code_id: compiled!,
      depends_on_nodes: nodes!,
      depends_on_macros: macros!,
    });
  }
  return entries;
}

const ENTRY_COLUMNS = ['entry_digest', 'unique_id', 'node_version_id', 'relation_name', 'compiled_code_id', 'depends_on_nodes', 'depends_on_macros'];

async function readMacros(connection: DuckDBConnection, invocationId: string): Promise<Map<string, string>> {
  const rows = await readJoined(connection, ['unique_id', 'macro_version_id'], 'macro_invocation WHERE invocation_id = $1', invocationId);
  return new Map(rows.map(([id, version]) => [id!, version!]));
}

async function readNodes(connection: DuckDBConnection, invocationId: string): Promise<Map<string, PriorNode>> {
  const listed = new Map<string, string[]>();
  for (const [id, macro] of await readJoined(
    connection,
    ['unique_id', 'depends_on_id'],
    "node_depends_on WHERE invocation_id = $1 AND kind = 'macro'",
    invocationId,
  )) {
    listed.set(id!, [...(listed.get(id!) ?? []), macro!]);
  }
  const rows = await readJoined(
    connection,
    ['unique_id', 'node_version_id', 'fingerprint'],
    'node_invocation WHERE invocation_id = $1 AND fingerprint IS NOT NULL',
    invocationId,
  );
  return new Map(rows.map(([id, version, fingerprint]) => [id!, { nodeVersionId: version!, fingerprint: fingerprint!, macros: listed.get(id!) ?? [] }]));
}

const FIELD = '\x1f';
const ROW = '\x1e';
const NULL = '\x1d';

/**
 * The rows of a table's `columns` where `fromWhere` says, fetched as one string: DuckDB's client
 * took 100-200 ms to hand over 30,000 short strings as values, and 10 ms as one. NULL travels
 * as its own mark. A row with a separator or the mark in a field is left out (no dbt id holds
 * one): a node left out is fingerprinted afresh, an edge left out makes its node's listed macros
 * differ, which does too, and an entry left out is parsed as new.
 */
async function readJoined(connection: DuckDBConnection, columns: readonly string[], fromWhere: string, invocationId: string): Promise<(string | null)[][]> {
  const clean = columns.flatMap((c) => [29, 30, 31].map((mark) => `NOT contains(coalesce(${c}::VARCHAR, ''), chr(${mark}))`)).join(' AND ');
  const fields = columns.map((c) => `coalesce(${c}::VARCHAR, chr(29))`).join(', ');
  const reader = await connection.runAndReadAll(`SELECT string_agg(concat_ws(chr(31), ${fields}), chr(30)) FROM ${fromWhere} AND ${clean}`, [invocationId]);
  const joined = reader.getRows()[0]?.[0];
  if (typeof joined !== 'string' || joined === '') return [];
  return joined.split(ROW).map((row) => row.split(FIELD).map((field) => (field === NULL ? null : field)));
}
