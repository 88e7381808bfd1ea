import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * Ids moved between DuckDB and us as one joined string, not as values: DuckDB's client took
 * 100-200 ms to hand over 30,000 short strings as values, and 10 ms as one. Only for ids that
 * cannot hold the separator (hex hashes).
 */
const SEPARATOR = ',';

/** The distinct values of `column` in `fromWhere` (SQL after FROM, with $-parameters). */
export async function readIds(connection: DuckDBConnection, column: string, fromWhere: string, params: string[] = []): Promise<string[]> {
  const reader = await connection.runAndReadAll(`SELECT string_agg(DISTINCT ${column}, '${SEPARATOR}') FROM ${fromWhere}`, params);
  const joined = reader.getRows()[0]?.[0];
  return typeof joined === 'string' && joined !== '' ? joined.split(SEPARATOR) : [];
}

/** SQL for a set of ids passed as one parameter made by joinIds: `x IN (SELECT unnest(…))`. */
export function idsParameter(placeholder: string): string {
  return `SELECT unnest(string_split(${placeholder}, '${SEPARATOR}'))`;
}

export function joinIds(ids: readonly string[]): string {
  return ids.join(SEPARATOR);
}
