import { readdirSync, readFileSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
// The versions alone, not the extract index: this runs at every reading command's start-up.
import { FINGERPRINT_VERSION, ROWS_VERSION } from '../extract/rule-versions.js';
import { sha256 } from '../vocab/index.js';

/**
 * The store's schema is the SQL in schema/*.sql, applied in name order. Its hash, with the
 * versions of the rules that derive rows from artifacts, is the schema version: a store written
 * under other SQL or other rules is rebuilt from the archive rather than migrated, since the
 * archive holds everything the store is derived from. The descriptions of tables, views and
 * columns (`COMMENT ON … IS '…';` beside each CREATE) are no part of it: they have a version of
 * their own, and a store with other descriptions is given the new ones in place.
 */
const SCHEMA_DIR = new URL('../../schema/', import.meta.url);

/**
 * The DuckDB storage format a new store file is written in. DuckDB writes the format of 1.0 by
 * default, so that old releases can read the file; that format has no compression for long
 * strings, and raw code, columns and config were stored as they are: at 10,000 nodes x 30 runs
 * the store was 117 MB compacted, against 48 MB in this format (DICT_FSST and ZSTD strings).
 * Only a DuckDB of this release or later reads the file; the store is a cache, and a store
 * written in another format is derived again (the format is part of the schema version).
 */
export const STORAGE_VERSION = 'v1.5.0';

export interface SchemaSql {
  files: { name: string; sql: string }[];
  version: string;
  /** Every `COMMENT ON` statement of the files, in order, and the hash of them all. */
  descriptions: { statements: string[]; version: string };
}

let cached: SchemaSql | undefined;

export function loadSchemaSql(): SchemaSql {
  if (cached) return cached;
  const files = readdirSync(SCHEMA_DIR)
    .filter((name) => name.endsWith('.sql'))
    .sort()
    .map((name) => ({ name, sql: readFileSync(new URL(name, SCHEMA_DIR), 'utf8') }));
  const statements = files.flatMap((f) => sqlAsRead(f.sql).match(DESCRIPTION) ?? []).map((s) => s.trim());
  cached = { files, version: schemaVersion(files), descriptions: { statements, version: sha256(statements.join('\n')).slice(0, 16) } };
  return cached;
}

function schemaVersion(files: SchemaSql['files']): string {
  const rules = `rows ${ROWS_VERSION} fingerprint ${FINGERPRINT_VERSION} storage ${STORAGE_VERSION}`;
  return sha256([rules, ...files.map((f) => `${f.name}\n${withoutDescriptions(sqlAsRead(f.sql))}`)].join('\n')).slice(0, 16);
}

/**
 * The SQL as read, without its descriptions: what the schema version is taken from, so that
 * describing a table, or rewording a description, derives no one's store again.
 */
export function withoutDescriptions(sqlRead: string): string {
  return sqlRead.replace(DESCRIPTION, '').trim();
}

/** A `COMMENT ON … IS '…';` statement of SQL as read (one space between words), from the start or after a `;`. */
const DESCRIPTION = /(?<=^|;)\s*COMMENT ON [^';]*? IS '(?:[^']|'')*'\s*;/gi;

/**
 * The SQL as DuckDB reads it: without comments, each run of whitespace one space. The version
 * is taken from this, so that rewording a comment does not derive every user's store again
 * (minutes on a long history). Quoted text is kept as written.
 */
export function sqlAsRead(sql: string): string {
  return sql.replace(QUOTED_OR_IGNORED, (_, quoted: string | undefined) => quoted ?? ' ').trim();
}

/** A quoted string or name (a doubled quote inside is part of it), or a run of spaces and comments. */
const QUOTED_OR_IGNORED = /('(?:[^']|'')*'|"(?:[^"]|"")*")|(?:\s|--[^\n]*|\/\*[\s\S]*?\*\/)+/g;

const META_TABLE = 'CREATE TABLE IF NOT EXISTS store_meta (key VARCHAR PRIMARY KEY, value VARCHAR)';

export async function readSchemaVersion(connection: DuckDBConnection): Promise<string | null> {
  const exists = await connection.runAndReadAll("SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'store_meta'");
  if (Number(exists.getRowObjectsJson()[0]?.n ?? 0) === 0) return null;
  const rows = (await connection.runAndReadAll("SELECT value FROM store_meta WHERE key = 'schema_version'")).getRowObjectsJson();
  const value = rows[0]?.value;
  return typeof value === 'string' ? value : null;
}

/**
 * True when the open file is written in STORAGE_VERSION's format or a later one. DuckDB keeps a
 * file's format when it opens it, so a store from before STORAGE_VERSION stays in the old one
 * until it is derived again into a new file.
 */
export async function hasCurrentStorage(connection: DuckDBConnection): Promise<boolean> {
  const rows = (await connection.runAndReadAll('SELECT tags FROM duckdb_databases() WHERE database_name = current_database()')).getRowObjectsJson();
  const tags = (rows[0]?.tags ?? []) as { key: string; value: string }[];
  const written = tags.find((tag) => tag.key === 'storage_version')?.value;
  return written !== undefined && compareVersions(written, STORAGE_VERSION) >= 0;
}

/** Compares DuckDB storage versions such as `v1.0.0+` and `v1.5.0` by their numbers. */
function compareVersions(a: string, b: string): number {
  const parts = (v: string) => (v.match(/\d+/g) ?? []).map(Number);
  const [pa, pb] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * Creates every table and view of an empty database and stamps the schema version. Callers run
 * it in one transaction: a process killed midway then leaves an empty file, made again by the
 * next command, never half a schema that reads as another version's store.
 */
export async function applySchema(connection: DuckDBConnection): Promise<void> {
  const schema = loadSchemaSql();
  for (const file of schema.files) await connection.run(file.sql);
  await connection.run(META_TABLE);
  await connection.run("INSERT OR REPLACE INTO store_meta VALUES ('schema_version', $1)", [schema.version]);
  await stampDescriptions(connection, schema.descriptions.version);
}

/**
 * Gives a store of the current schema the current descriptions, when it has others (a store
 * written before they changed: the schema version leaves them out). Catalog entries only: no
 * row is read or written.
 */
export async function applyDescriptions(connection: DuckDBConnection): Promise<void> {
  const { statements, version } = loadSchemaSql().descriptions;
  const rows = (await connection.runAndReadAll("SELECT value FROM store_meta WHERE key = 'descriptions_version'")).getRowObjectsJson();
  if (rows[0]?.value === version) return;
  for (const statement of statements) await connection.run(statement);
  await stampDescriptions(connection, version);
}

async function stampDescriptions(connection: DuckDBConnection, version: string): Promise<void> {
  await connection.run("INSERT OR REPLACE INTO store_meta VALUES ('descriptions_version', $1)", [version]);
}
