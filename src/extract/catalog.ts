import { objectMembers } from '../json/scan.js';
import { openArtifact, type ArtifactHeader, type ReadOptions } from './detect.js';
import { asObject, int, json, str, type JsonObject } from './fields.js';
import { metadataFacts } from './invocation.js';
import type { CatalogColumnRow, CatalogTableRow, InvocationFacts } from './rows.js';
import { guardScan, mapMembers, parseRange } from './scan-items.js';

/**
 * catalog.json (`dbt docs generate`) → a row per relation and per column. Catalog v1 kept the
 * shape of the unversioned catalogs before 0.19, so one reader serves both. A warehouse's
 * catalog can be large, so relations are read one at a time.
 */
export interface CatalogEntry {
  table: CatalogTableRow;
  columns: CatalogColumnRow[];
}

export interface CatalogExtract {
  header: ArtifactHeader;
  invocation: InvocationFacts;
  entries(): Generator<CatalogEntry>;
}

/** Stats ids adapters use for a relation's size: Snowflake, Redshift, BigQuery, Databricks... */
const ROW_COUNT_STATS = ['row_count', 'num_rows', 'rows'];
const BYTE_COUNT_STATS = ['bytes', 'num_bytes', 'size'];

export function extractCatalog(buf: Buffer, options: ReadOptions = {}): CatalogExtract {
  const { header, invocationId } = openArtifact(buf, 'catalog', options);
  return {
    header,
    // Only `dbt docs generate` writes catalog.json: a catalog alone still names its command.
    invocation: { ...metadataFacts(header, invocationId), command: 'docs generate' },
    entries: () => guardScan('catalog', catalogEntries(buf, invocationId)),
  };
}

function* catalogEntries(buf: Buffer, invocationId: string): Generator<CatalogEntry> {
  for (const section of objectMembers(buf)) {
    if (section.key !== 'nodes' && section.key !== 'sources') continue;
    for (const member of mapMembers(buf, section)) {
      const relation = asObject(parseRange(buf, member)) ?? {};
      yield catalogEntry(relation, str(relation.unique_id) ?? member.key, invocationId);
    }
  }
}

function catalogEntry(relation: JsonObject, uniqueId: string, invocationId: string): CatalogEntry {
  const metadata = asObject(relation.metadata) ?? {};
  const stats = asObject(relation.stats) ?? {};
  const table: CatalogTableRow = {
    invocation_id: invocationId,
    unique_id: uniqueId,
    database_name: str(metadata.database),
    schema_name: str(metadata.schema),
    table_name: str(metadata.name),
    table_type: str(metadata.type),
    owner: str(metadata.owner),
    comment: str(metadata.comment),
    row_count: statValue(stats, ROW_COUNT_STATS),
    byte_count: statValue(stats, BYTE_COUNT_STATS),
    stats: json(relation.stats),
  };
  return { table, columns: columnRows(asObject(relation.columns) ?? {}, uniqueId, invocationId) };
}

function columnRows(columns: JsonObject, uniqueId: string, invocationId: string): CatalogColumnRow[] {
  return Object.entries(columns).map(([key, value]) => {
    const column = asObject(value) ?? {};
    return {
      invocation_id: invocationId,
      unique_id: uniqueId,
      // The key, not column.name: keys are unique, which the table's key needs; they are equal in every catalog seen.
      column_name: key,
      column_type: str(column.type),
      column_index: int(column.index),
      comment: str(column.comment),
    };
  });
}

function statValue(stats: JsonObject, ids: readonly string[]): number | null {
  for (const id of ids) {
    const value = int(asObject(stats[id])?.value);
    if (value !== null) return value;
  }
  return null;
}
