import type { Json } from '@duckdb/node-api';
import { AtticError } from '../../errors.js';
import type { Database } from '../db/database.js';
import { plainRows, type PlainResult } from '../db/plain-rows.js';
import { prepareReadStatements } from './read-statements.js';

/** Where a query's rows go as they arrive: a result is never held whole (60 M rows would not fit). */
export interface QuerySink {
  columns(columns: PlainResult['columns']): void;
  rows(rows: Record<string, Json>[]): Promise<void>;
}

export interface QueryOptions {
  /** At most this many rows; null: all. */
  limit: number | null;
  /** At most this many bytes of rows, as JSON; null: no bound. An answer an agent reads must end somewhere. */
  maxBytes?: number | null;
  /** Interrupt the query after this long; null: never. */
  timeoutMs: number | null;
}

export interface QueryOutcome {
  rows: number;
  /** True when the result had more rows than the limit, or than fit in maxBytes. */
  truncated: boolean;
  /** What cut the answer short. */
  cutBy?: 'rows' | 'bytes';
}

/**
 * What a user's query may take of memory (DBTATTIC_QUERY_MEMORY_LIMIT): left at DuckDB's default
 * (80 % of RAM), `SELECT repeat('x', 1e9) FROM range(4)` took a CLI process to 4.2 GB. Past it,
 * DuckDB spills what it can to disk and fails the rest with an error that names the setting.
 */
export const QUERY_MEMORY_LIMIT = process.env.DBTATTIC_QUERY_MEMORY_LIMIT ?? '2GB';

/**
 * Runs user SQL on a read-only connection that also cannot reach files or the network, and only
 * the statements DuckDB's own parser calls queries (read-statements.ts), so a query can neither
 * change the store nor write elsewhere (COPY TO, ATTACH, INSTALL). Rows of the last statement are
 * fetched a chunk at a time and handed to the sink, which may wait for its output to drain.
 */
export async function streamReadOnlyQuery(db: Database, sql: string, options: QueryOptions, sink: QuerySink): Promise<QueryOutcome> {
  await db.connection.run(`SET memory_limit = '${QUERY_MEMORY_LIMIT.replace(/'/g, '')}'`);
  await db.connection.run('SET enable_external_access = false');
  await db.connection.run('SET lock_configuration = true');
  let timedOut = false;
  const timer =
    options.timeoutMs === null
      ? null
      : setTimeout(() => {
          timedOut = true;
          db.connection.interrupt();
        }, options.timeoutMs);
  try {
    return await pump(db, sql, options, sink);
  } catch (error) {
    if (timedOut)
      throw new AtticError(
        'query-timeout',
        `The query was stopped after ${options.timeoutMs! / 1000} s. Raise --timeout (seconds; 0: none), or narrow the query.`,
      );
    throw refusal(error, sql);
  } finally {
    if (timer) clearTimeout(timer);
  }
}

async function pump(db: Database, sql: string, options: QueryOptions, sink: QuerySink): Promise<QueryOutcome> {
  const statements = await prepareReadStatements(db.connection, sql);
  // As DuckDB answers a text of several statements: each runs, the last one's rows are the answer.
  for (const statement of statements.slice(0, -1)) await statement.run();
  const result = await statements.at(-1)!.stream();
  const plain = plainRows(result.columnNames(), result.columnTypes());
  sink.columns(plain.columns);
  const room = { rows: options.limit ?? Number.POSITIVE_INFINITY, bytes: options.maxBytes ?? Number.POSITIVE_INFINITY };
  let count = 0;
  for await (const batch of result.yieldRowsJson()) {
    const rows = plain.convert(batch.slice(0, Math.min(batch.length, room.rows - count)));
    const fitting = options.maxBytes ? rowsThatFit(rows, room) : rows.length;
    await sink.rows(fitting === rows.length ? rows : rows.slice(0, fitting));
    count += fitting;
    if (fitting < rows.length) return { rows: count, truncated: true, cutBy: 'bytes' };
    if (rows.length < batch.length) return { rows: count, truncated: true, cutBy: 'rows' };
  }
  return { rows: count, truncated: false };
}

/** How many of `rows` fit in what is left of `room.bytes` (each as its JSON), taking that room. */
function rowsThatFit(rows: Record<string, Json>[], room: { bytes: number }): number {
  for (const [i, row] of rows.entries()) {
    const bytes = Buffer.byteLength(JSON.stringify(row));
    if (bytes > room.bytes) return i;
    room.bytes -= bytes;
  }
  return rows.length;
}

function refusal(error: unknown, sql: string): unknown {
  if (error instanceof AtticError) return error;
  const message = error instanceof Error ? error.message : String(error);
  // duckdb_extensions() reads DuckDB's extension directory: a file access like any other, though it looks like a catalog lookup.
  if (/duckdb_extensions\s*\(/i.test(sql) && /Cannot access directory/i.test(message)) {
    return new AtticError(
      'query-refused',
      "duckdb_extensions() reads DuckDB's extension directory, and queries may not touch files; the extensions queries can use are built in: json, parquet, icu.",
    );
  }
  if (/Out of Memory Error/i.test(message)) {
    return new AtticError(
      'usage',
      `The query needed more memory than a query may take (DBTATTIC_QUERY_MEMORY_LIMIT=${QUERY_MEMORY_LIMIT}): ${firstLine(message)} Narrow it (fewer or shorter values), or raise the limit.`,
    );
  }
  if (/read-only|external access|disabled (by|through) configuration|lock_configuration|Cannot change configuration/i.test(message)) {
    return new AtticError('query-refused', `The store is read-only to queries; the statement was refused and nothing changed (${firstLine(message)}).`);
  }
  const hint = /Catalog Error/.test(message) ? " See the tables and views with: dbtattic query 'show tables' (docs/store.md lists them)." : '';
  return new AtticError('usage', `The query failed: ${firstLine(message)}${hint}`);
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}
