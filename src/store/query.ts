import { AtticError } from '../errors.js';
import { openDatabase } from './database.js';
import { plainResult, type PlainResult } from './plain-rows.js';

export interface QueryResult extends PlainResult {
  /** True when the result had more rows than the limit. */
  truncated: boolean;
}

/**
 * Runs user SQL on a read-only connection that also cannot reach files or the network, so a
 * query can neither change the store nor write elsewhere (COPY TO, ATTACH, INSTALL).
 */
export async function runReadOnlyQuery(file: string, sql: string, limit: number | null): Promise<QueryResult> {
  const db = await openDatabase(file, 'read');
  try {
    await db.connection.run('SET enable_external_access = false');
    await db.connection.run('SET lock_configuration = true');
    const refused = (error: unknown): never => refuse(error, sql);
    const reader = limit === null ? await db.connection.runAndReadAll(sql).catch(refused) : await db.connection.runAndReadUntil(sql, limit + 1).catch(refused);
    const result = plainResult(reader);
    const truncated = limit !== null && result.rows.length > limit;
    return { ...result, rows: truncated ? result.rows.slice(0, limit!) : result.rows, truncated };
  } finally {
    db.close();
  }
}

function refuse(error: unknown, sql: string): never {
  const message = error instanceof Error ? error.message : String(error);
  // duckdb_extensions() reads DuckDB's extension directory: a file access like any other, though
  // it looks like a catalog lookup. INSTALL touches that directory too, and is a write like any other.
  if (/Cannot access directory .*extensions/i.test(message) && /duckdb_extensions/i.test(sql)) {
    throw new AtticError('query-refused', "duckdb_extensions() reads DuckDB's extension directory, and queries may not touch files; the extensions queries can use are built in: json, parquet, icu.");
  }
  if (/read-only|external access|disabled (by|through) configuration|lock_configuration|Cannot change configuration/i.test(message)) {
    throw new AtticError('query-refused', `The store is read-only to queries; the statement was refused and nothing changed (${firstLine(message)}).`);
  }
  const hint = /Catalog Error/.test(message) ? " See the tables and views with: dbtattic query 'show tables' (README lists them)." : '';
  throw new AtticError('usage', `The query failed: ${firstLine(message)}${hint}`);
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}
