import type { DuckDBConnection, DuckDBPreparedStatement } from '@duckdb/node-api';
import { duckdb } from '../duckdb.js';
import { AtticError } from '../../errors.js';

/**
 * User SQL as DuckDB itself reads it: split into statements and prepared by DuckDB's own parser,
 * each run only when DuckDB says it is a query. A text filter in front of the parser always lags
 * it (a carriage return ended a `--` comment for DuckDB, not for the filter, and COPY … TO
 * overwrote the store). SHOW, DESCRIBE, SUMMARIZE, FROM-first and query PRAGMAs are queries
 * too. The store is still opened read-only and the connection cannot reach files: this is the
 * third wall, not the only one.
 */
const REFUSED_FUNCTIONS = new Set(['enable_logging', 'disable_logging', 'truncate_duckdb_logs', 'checkpoint', 'force_checkpoint']);

// Through duckdb.js: importing the package's values directly loaded it a second time, uncached,
// in every reading command (about 150 ms of each one's start).
const { StatementType } = duckdb;

/**
 * Queries, and SET: `SET VARIABLE` sets a variable of the session, which the views' thresholds
 * read (docs/store.md); a setting of DuckDB's own is refused by DuckDB, the configuration being
 * locked before the query runs.
 */
const READING = new Set([StatementType.SELECT, StatementType.SET, StatementType.VARIABLE_SET]);

/** The prepared statements of `sql`, in order; refuses the whole text when any does not only read. */
export async function prepareReadStatements(connection: DuckDBConnection, sql: string): Promise<DuckDBPreparedStatement[]> {
  // DuckDB's errors (a syntax error, a file its binder may not reach) go up as they are: the
  // caller says which are refusals.
  const extracted = await connection.extractStatements(sql);
  if (extracted.count === 0) throw new AtticError('usage', 'The query holds no statement.');
  const prepared: DuckDBPreparedStatement[] = [];
  for (let i = 0; i < extracted.count; i++) {
    const statement = await extracted.prepare(i);
    if (!READING.has(statement.statementType)) throw refused(`${StatementType[statement.statementType] ?? 'this'} statements do not only read`);
    prepared.push(statement);
  }
  await refuseSideEffects(connection, sql);
  return prepared;
}

/**
 * A SELECT may still call a table function that acts (enable_logging writes DuckDB's log where
 * it is told, even with the configuration locked): the names of every function called, read
 * from DuckDB's own syntax tree of the text.
 */
async function refuseSideEffects(connection: DuckDBConnection, sql: string): Promise<void> {
  const reader = await connection.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR)', [sql]);
  const tree = JSON.parse(String(reader.getRows()[0]?.[0] ?? '{}')) as { error?: boolean };
  // A text holding SET VARIABLE or a query PRAGMA has no tree to read: there, any mention of
  // such a function refuses it, in a string or a comment too (the safe side).
  const called = tree.error
    ? [...REFUSED_FUNCTIONS].find((name) => sql.toLowerCase().includes(name))
    : functionNames(tree).find((name) => REFUSED_FUNCTIONS.has(name.toLowerCase()));
  if (called) throw refused(`${called}() acts on the database`);
}

function functionNames(node: unknown, names: string[] = []): string[] {
  if (Array.isArray(node)) for (const child of node) functionNames(child, names);
  else if (node && typeof node === 'object') {
    const name = (node as { function_name?: unknown }).function_name;
    if (typeof name === 'string') names.push(name);
    for (const child of Object.values(node)) functionNames(child, names);
  }
  return names;
}

function refused(why: string): AtticError {
  return new AtticError(
    'query-refused',
    `The store is read-only to queries; the statement was refused and nothing changed (${why}; queries may only read: SELECT, FROM, WITH, SHOW, DESCRIBE, SUMMARIZE).`,
  );
}
