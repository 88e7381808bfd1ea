import type { Json } from '@duckdb/node-api';
import { AtticError } from '../errors.js';
import type { Database } from './database.js';
import { plainRows, type PlainResult } from './plain-rows.js';
import { prepareReadStatements } from './read-statements.js';

/** Where a query's rows go as they arrive: a result is never held whole (60 M rows would not fit). */
export interface QuerySink {
  columns(columns: PlainResult['columns']): void;
  rows(rows: Record<string, Json>[]): Promise<void>;
}

export interface QueryOptions {
  /** At most this many rows; null: all. */
  limit: number | null;
  /** Interrupt the query after this long; null: never. */
  timeoutMs: number | null;
}

export interface QueryOutcome {
  rows: number;
  /** True when the result had more rows than the limit. */
  truncated: boolean;
}

/**
 * Runs user SQL on a read-only connection that also cannot reach files or the network, and only
 * the statements DuckDB's own parser calls queries (read-statements.ts), so a query can neither
 * change the store nor write elsewhere (COPY TO, ATTACH, INSTALL). Rows of the last statement are
 * fetched a chunk at a time and handed to the sink, which may wait for its output to drain.
 */
export async function streamReadOnlyQuery(db: Database, sql: string, options: QueryOptions, sink: QuerySink): Promise<QueryOutcome> {
  await db.connection.run('SET enable_external_access = false');
  await db.connection.run('SET lock_configuration = true');
  let timedOut = false;
  const timer = options.timeoutMs === null ? null : setTimeout(() => {
    timedOut = true;
    db.connection.interrupt();
  }, options.timeoutMs);
  try {
    return await pump(db, sql, options.limit, sink);
  } catch (error) {
    if (timedOut) throw new AtticError('query-timeout', `The query was stopped after ${options.timeoutMs! / 1000} s. Raise --timeout (seconds; 0: none), or narrow the query.`);
    throw refusal(error, sql);
  } finally {
    if (timer) clearTimeout(timer);
  }
}

async function pump(db: Database, sql: string, limit: number | null, sink: QuerySink): Promise<QueryOutcome> {
  const statements = await prepareReadStatements(db.connection, sql);
  // As DuckDB answers a text of several statements: each runs, the last one's rows are the answer.
  for (const statement of statements.slice(0, -1)) await statement.run();
  const result = await statements.at(-1)!.stream();
  const plain = plainRows(result.columnNames(), result.columnTypes());
  sink.columns(plain.columns);
  let count = 0;
  for await (const batch of result.yieldRowsJson()) {
    const room = limit === null ? batch.length : limit - count;
    if (batch.length > room) {
      await sink.rows(plain.convert(batch.slice(0, room)));
      return { rows: count + room, truncated: true };
    }
    await sink.rows(plain.convert(batch));
    count += batch.length;
  }
  return { rows: count, truncated: false };
}

function refusal(error: unknown, sql: string): unknown {
  if (error instanceof AtticError) return error;
  const message = error instanceof Error ? error.message : String(error);
  // duckdb_extensions() reads DuckDB's extension directory: a file access like any other, though it looks like a catalog lookup.
  if (/duckdb_extensions\s*\(/i.test(sql) && /Cannot access directory/i.test(message)) {
    return new AtticError('query-refused', "duckdb_extensions() reads DuckDB's extension directory, and queries may not touch files; the extensions queries can use are built in: json, parquet, icu.");
  }
  if (/read-only|external access|disabled (by|through) configuration|lock_configuration|Cannot change configuration/i.test(message)) {
    return new AtticError('query-refused', `The store is read-only to queries; the statement was refused and nothing changed (${firstLine(message)}).`);
  }
  const hint = /Catalog Error/.test(message) ? " See the tables and views with: dbtattic query 'show tables' (README lists them)." : '';
  return new AtticError('usage', `The query failed: ${firstLine(message)}${hint}`);
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}
