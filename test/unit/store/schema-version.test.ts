import { describe, expect, it } from 'vitest';
import { sqlAsRead } from '../../../src/store/schema.js';

describe('the SQL a schema version is taken from', () => {
  it('leaves out comments and spacing, which DuckDB ignores', () => {
    const plain = 'CREATE TABLE t ( a INT, b INT ); SELECT a FROM t;';
    const commented = '-- the table\nCREATE TABLE t (\n  a INT, -- first\n  b INT /* second */\n);\n\n/* a view */ SELECT a\n   FROM t;\n';
    expect(sqlAsRead(commented)).toBe(plain);
    expect(sqlAsRead('SELECT  1\t+\n1')).toBe('SELECT 1 + 1');
  });

  it('keeps quoted text as written, comment marks and spaces too', () => {
    expect(sqlAsRead('SELECT \'-- not  a comment\', "a  /* name */" -- gone')).toBe('SELECT \'-- not  a comment\', "a  /* name */"');
    expect(sqlAsRead("SELECT 'it''s  -- kept' -- gone")).toBe("SELECT 'it''s  -- kept'");
  });

  it('takes a comment between two words as the space it is', () => {
    expect(sqlAsRead('SELECT a/* x */FROM t')).toBe(sqlAsRead('SELECT a FROM t'));
  });

  it('tells apart SQL that DuckDB reads differently', () => {
    expect(sqlAsRead('SELECT a FROM t')).not.toBe(sqlAsRead('SELECT b FROM t'));
    expect(sqlAsRead("SELECT 'a b'")).not.toBe(sqlAsRead("SELECT 'a  b'"));
  });
});
