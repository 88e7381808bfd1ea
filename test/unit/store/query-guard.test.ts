import { describe, expect, it } from 'vitest';
import { guardQuery, sqlWords } from '../../../src/store/query-guard.js';

describe('guardQuery', () => {
  it('lets questions through, whatever their strings, quoted names and comments say', () => {
    for (const sql of [
      "SELECT * FROM run_result WHERE message ILIKE '%copy%' OR message LIKE '%load%'",
      'SELECT "copy", "load" FROM (SELECT 1 AS "copy", 2 AS "load")',
      "-- copy this later\nSELECT max_loaded_at, loaded_at FROM source_freshness /* export? */",
      "SELECT $$ copy $$ AS a, $tag$ attach $tag$ AS b, E'it''s \\' install' AS c",
      "SET VARIABLE regression_ratio = 2; SELECT * FROM v_runtime_regressions",
      'EXPLAIN ANALYZE SELECT count(*) FROM node',
    ]) expect(() => guardQuery(sql), sql).not.toThrow();
  });

  it('refuses what writes files or loads code, wherever a reading could disagree with DuckDB', () => {
    for (const sql of [
      "COPY invocation TO 'x.csv'",
      "select 1; copy (select 1) to 'store.duckdb'",
      "EXPLAIN ANALYZE COPY (SELECT 1) TO 'store.duckdb'",
      // A backslash ends no standard string: DuckDB reads the COPY after it.
      "SELECT '\\'; COPY (SELECT 1) TO 'store.duckdb'; SELECT '\\'",
      // In an E'' string it escapes the quote, so the string ends later.
      "SELECT E'\\''; COPY (SELECT 1) TO 'store.duckdb'; SELECT ''",
      // Nested comments here end at the first */: seeing more words is the safe side.
      '/* /* */ COPY x TO y */ SELECT 1',
      "SELECT $1; COPY x TO 'y'",
      "ATTACH 'store.duckdb' AS w",
      'DETACH w',
      'INSTALL httpfs',
      'LOAD httpfs',
      "EXPORT DATABASE 'dir'",
      "IMPORT DATABASE 'dir'",
      "CALL enable_logging(storage = 'file', storage_path = '.')",
      'SELECT 1copy',
    ]) expect(() => guardQuery(sql), sql).toThrow(/read-only to queries/);
  });

  it('reads words as DuckDB does around quotes', () => {
    expect([...sqlWords(`SELECT "a""copy" , 'b''load', x$y FROM t -- copy`)]).toEqual(['select', 'x$y', 'from', 't']);
  });
});
