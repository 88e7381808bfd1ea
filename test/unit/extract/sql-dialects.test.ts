import { describe, expect, it } from 'vitest';
import { dialectFor, type AdapterType } from '../../../src/extract/sql-dialect.js';
import { normalizeSql } from '../../../src/extract/sql-tokens.js';

/**
 * The lexical rules of each adapter's SQL, as each warehouse documents them, written out here
 * independently of src/extract/sql-dialect.ts: every rule is checked in every dialect, so a rule
 * given to one dialect too many (or taken from one) fails here.
 */
interface Rules {
  /** `/* a /* b *\/ c *\/` is one comment. */
  nested: boolean;
  /** `// x` is a comment. */
  slash: boolean;
  /** `# x` is a comment. */
  hash: boolean;
  /** `\'` escapes a quote in '…'. */
  backslash: boolean;
  /** `$$…$$` is a string. */
  dollar: boolean;
  /** `$tag$…$tag$` is a string. */
  taggedDollar: boolean;
  /** `'''…'''` is one string. */
  triple: boolean;
  /** `[x]` quotes an identifier. */
  brackets: boolean;
  /** `/*+ … *\/` is a hint, kept. */
  hints: boolean;
}

const NONE: Rules = {
  nested: false,
  slash: false,
  hash: false,
  backslash: false,
  dollar: false,
  taggedDollar: false,
  triple: false,
  brackets: false,
  hints: false,
};

const RULES: Record<AdapterType, Rules> = {
  postgres: { ...NONE, nested: true, dollar: true, taggedDollar: true },
  redshift: { ...NONE, dollar: true, taggedDollar: true },
  duckdb: { ...NONE, nested: true, dollar: true, taggedDollar: true },
  snowflake: { ...NONE, slash: true, backslash: true, dollar: true },
  bigquery: { ...NONE, hash: true, backslash: true, triple: true },
  spark: { ...NONE, nested: true, backslash: true, hints: true },
  databricks: { ...NONE, nested: true, backslash: true, hints: true },
  sqlserver: { ...NONE, nested: true, brackets: true },
  unknown: NONE,
};

const normal = (sql: string, adapter: AdapterType): string => normalizeSql(sql, dialectFor(adapter));
const sameNormal = (a: string, b: string, adapter: AdapterType): boolean => normal(a, adapter) === normal(b, adapter);

describe.each(Object.entries(RULES) as [AdapterType, Rules][])('the SQL of %s', (adapter, rules) => {
  it(`${rules.nested ? 'nests' : 'does not nest'} block comments`, () => {
    // Not nesting, the comment ends at the first `*/` and ` c */` is SQL.
    expect(sameNormal('/* a /* b */ c */ select 1', 'select 1', adapter)).toBe(rules.nested);
    expect(sameNormal('/* a /* b */ c */ select 1', 'c */ select 1', adapter)).toBe(!rules.nested);
  });

  it(`${rules.slash ? 'has' : 'has no'} // comments`, () => {
    expect(sameNormal('select 7 // 2', 'select 7', adapter)).toBe(rules.slash);
  });

  it(`${rules.hash ? 'has' : 'has no'} # comments`, () => {
    expect(sameNormal('select 7 # 2', 'select 7', adapter)).toBe(rules.hash);
  });

  it(`${rules.backslash ? 'escapes' : 'does not escape'} quotes with a backslash`, () => {
    // With escapes the string runs to the last quote and the comment marker is inside it.
    expect(sameNormal("select 'a\\' -- b'", "select 'a\\' -- c'", adapter)).toBe(!rules.backslash);
  });

  it(`${rules.dollar ? 'has' : 'has no'} $$ strings, and ${rules.taggedDollar ? 'has' : 'has no'} tagged ones`, () => {
    expect(sameNormal('select $$ a -- b $$', 'select $$ a -- c $$', adapter)).toBe(!rules.dollar);
    expect(sameNormal('select $t$ a -- b $t$', 'select $t$ a -- c $t$', adapter)).toBe(!rules.taggedDollar);
  });

  it(`${rules.triple ? 'has' : 'has no'} triple-quoted strings`, () => {
    // As '' then 'a' …: the `--` is outside any string and starts a comment.
    expect(sameNormal("select '''a ' -- b'''", "select '''a ' -- c'''", adapter)).toBe(!rules.triple);
  });

  it(`${rules.brackets ? 'quotes' : 'does not quote'} identifiers in brackets`, () => {
    expect(sameNormal('select [Col]', 'select [col]', adapter)).toBe(!rules.brackets);
  });

  it(`${rules.hints ? 'keeps' : 'drops'} /*+ hints */`, () => {
    expect(sameNormal('select /*+ BROADCAST(b) */ a', 'select a', adapter)).toBe(!rules.hints);
  });

  it('always has -- comments and {# #} Jinja comments, and keeps string literals', () => {
    expect(sameNormal('select 1 -- x', 'select 1', adapter)).toBe(true);
    expect(sameNormal('select 1 {# x #}', 'select 1', adapter)).toBe(true);
    expect(sameNormal("select 'A'", "select 'a'", adapter)).toBe(false);
  });
});

describe('adapter names', () => {
  it.each([
    ['fabric', 'sqlserver'],
    ['synapse', 'sqlserver'],
    ['materialize', 'postgres'],
    ['motherduck', 'duckdb'],
    ['Snowflake', 'snowflake'],
    ['oracle', 'unknown'],
    [null, 'unknown'],
  ])('%s reads as %s', (name, adapter) => {
    expect(dialectFor(name).adapter).toBe(adapter);
  });
});
