import { readdirSync, readFileSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
// The versions alone, not the extract index: this runs at every reading command's start-up.
import { FINGERPRINT_VERSION, ROWS_VERSION } from '../extract/rule-versions.js';
import { sha256 } from '../vocab/index.js';

/**
 * The store's schema is the SQL in schema/*.sql, applied in name order. Its hash, with the
 * versions of the rules that derive rows from artifacts, is the schema version: a store written
 * under other SQL or other rules is rebuilt from the archive rather than migrated, since the
 * archive holds everything the store is derived from.
 */
const SCHEMA_DIR = new URL('../../schema/', import.meta.url);

export interface SchemaSql {
  files: { name: string; sql: string }[];
  version: string;
}

let cached: SchemaSql | undefined;

export function loadSchemaSql(): SchemaSql {
  if (cached) return cached;
  const files = readdirSync(SCHEMA_DIR)
    .filter((name) => name.endsWith('.sql'))
    .sort()
    .map((name) => ({ name, sql: readFileSync(new URL(name, SCHEMA_DIR), 'utf8') }));
  cached = { files, version: sha256([`rows ${ROWS_VERSION} fingerprint ${FINGERPRINT_VERSION}`, ...files.map((f) => `${f.name}\n${f.sql}`)].join('\n')).slice(0, 16) };
  return cached;
}

const META_TABLE = 'CREATE TABLE IF NOT EXISTS store_meta (key VARCHAR PRIMARY KEY, value VARCHAR)';

export async function readSchemaVersion(connection: DuckDBConnection): Promise<string | null> {
  const exists = await connection.runAndReadAll("SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'store_meta'");
  if (Number(exists.getRowObjectsJson()[0]?.n ?? 0) === 0) return null;
  const rows = (await connection.runAndReadAll("SELECT value FROM store_meta WHERE key = 'schema_version'")).getRowObjectsJson();
  const value = rows[0]?.value;
  return typeof value === 'string' ? value : null;
}

/** Creates every table and view of an empty database and stamps the schema version. */
export async function applySchema(connection: DuckDBConnection): Promise<void> {
  const schema = loadSchemaSql();
  for (const file of schema.files) await connection.run(file.sql);
  await connection.run(META_TABLE);
  await connection.run("INSERT OR REPLACE INTO store_meta VALUES ('schema_version', $1)", [schema.version]);
}
