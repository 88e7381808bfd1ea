import { describe, expect, it } from 'vitest';
import { dialectFor, type AdapterType } from '../../../src/extract/sql-dialect.js';
import { normalizeSql } from '../../../src/extract/sql-tokens.js';

type Case = [label: string, a: string, b: string, adapter?: AdapterType];

const normal = (sql: string, adapter: AdapterType = 'postgres'): string => normalizeSql(sql, dialectFor(adapter));

// The cases of /work/shared/notes/sql-fingerprint-cases.md, then ours.
const same: Case[] = [
  ['line comment', 'select a from t -- hi', 'select a from t'],
  ['block comment', 'select /* c */ a from t', 'select a from t'],
  ['doubled quotes', `select 'it''s' as x, "col ""q""" from t`, `select 'it''s' as x, "col ""q""" from t -- c`],
  ['dollar quoting', "$fn$ a ' b $fn$ /* c */", "$fn$ a ' b $fn$"],
  ['jinja comment holding a quote', "{# select * from x -- ' #}\nselect 1", 'select 1'],
  ['jinja comment holding jinja', "{# {{ ref('x') }} {% if %} #}select 1", 'select 1'],
  ['statement whitespace control', "{%- if var('x') -%} select 1 {%- endif -%}", "{% if var('x') %} select 1 {% endif %}"],
  ['expression whitespace control', "select * from {{- ref('a') -}}", "select * from {{ ref('a') }}"],
  ['spaces inside jinja', "select * from {{ref( 'a' )}}", "select * from {{ ref('a') }}"],
  ['keyword case', 'SELECT a FROM t WHERE x IS NOT NULL', 'select a from t where x is not null'],
  ['unquoted identifier case', 'select Amount from Orders', 'select amount from orders'],
  ['whitespace, tabs, CRLF', 'select a,\r\n\tb\n\n  from   t', 'select a, b from t'],
  ['operator spacing', 'select a<>b, c::int, x||y', 'select a <> b, c :: int, x || y'],
  ['operator spacing (snowflake)', 'select a<>b, c::int, x||y', 'select a <> b, c :: int, x || y', 'snowflake'],
  ['slash comment', 'select 1 // note', 'select 1', 'snowflake'],
  ['hash comment', 'select 1 # note', 'select 1', 'bigquery'],
  ['backslash escape', "select 'it\\'s -- x' -- c", "select 'it\\'s -- x'", 'snowflake'],
  ['E string', "select E'a\\'b -- c' /* z */", "select E'a\\'b -- c'"],
  ['nested block comment', '/* a /* b */ c */ select 1', 'select 1'],
  ['number case', 'select 1E5', 'select 1e5'],
  // ours
  ['tagged dollar quote holding $$', 'select $body$ a $$ b $body$ -- c', 'select $body$ a $$ b $body$'],
  ['jinja whitespace inside a string', `where d = '{{ var("start") }}'`, `where d = '{{var( "start" )}}'`],
  ['single quotes in jinja in a single-quoted string', "where d = '{{ var('s') }}' -- x", "where d = '{{var('s')}}'"],
  ['closer inside a jinja string', 'select {{ "}}" }} as x', 'select {{"}}"}} as x'],
  ['dict braces in jinja', "select {{ f({'a': 1}) }}", "select {{f({'a':1})}}"],
  ['jinja keeps a space between names', '{% if x is not none %}1{% endif %}', '{%if x  is  not none%}1{%endif%}'],
  ['cast keyword case (snowflake)', 'select x::VARCHAR', 'select x::varchar', 'snowflake'],
  ['subscript spacing (postgres)', 'select arr[1]', 'select arr[ 1 ]'],
  ['unicode space', 'select\u00a0a', 'select a'],
];

const changes: Case[] = [
  ['comment marker in a string', "select '--not a comment'", "select '--not a  comment'"],
  ['block comment in a string', "select 'a /* b */ c'", "select 'a  c'"],
  ['comment after a doubled quote', "select 'it''s -- still string'", "select 'it''s'"],
  ['dollar-quoted body', "select $$ it's -- not a comment $$", "select $$ it's -- not a  comment $$"],
  ['dollar-quoted body (snowflake)', "select $$ it's -- x $$", "select $$ it's -- y $$", 'snowflake'],
  ['ref target', "select * from {{ ref('a') }}", "select * from {{ ref('b') }}"],
  ['jinja case', "select * from {{ ref('Orders') }}", "select * from {{ ref('orders') }}"],
  ['jinja string', "{% set x = 'A' %}", "{% set x = 'a' %}"],
  ['jinja glued to a name', 'select * from {{ target.schema }}_orders', 'select * from {{ target.schema }} _orders'],
  ['comment holding jinja', "-- depends_on: {{ ref('x') }}\nselect 1", 'select 1'],
  ['string case', "where status = 'paid'", "where status = 'Paid'"],
  ['number', 'where n > 100', 'where n > 1000'],
  ['quoted identifier case', 'select "Col" from t', 'select "col" from t'],
  ['column order', 'select a, b', 'select b, a'],
  ['optimizer hint', 'select /*+ BROADCAST(b) */ a from t', 'select a from t', 'spark'],
  ['optimizer hint (databricks)', 'select /*+ BROADCAST(b) */ a from t', 'select a from t', 'databricks'],
  ['integer division', 'select 7 // 2', 'select 7', 'duckdb'],
  ['backtick identifier case', 'select * from `proj.ds.Tbl`', 'select * from `proj.ds.tbl`', 'bigquery'],
  ['triple-quoted body', "select '''a ' -- b'''", "select '''a ' -- c'''", 'bigquery'],
  // ours
  ['after a backslash escape', "select 'it\\'s -- x'", "select 'it\\'s -- y'", 'snowflake'],
  ['after an E-string escape', "select E'a\\'b -- c'", "select E'a\\'b -- d'"],
  ['jinja case inside a string', "where d = '{{ var('Start') }}'", "where d = '{{ var('start') }}'"],
  ['semi-structured path case', 'select src:Customer.Name', 'select src:customer.name', 'snowflake'],
  ['bracket identifier case', 'select [Col] from t', 'select [col] from t', 'sqlserver'],
  ['# is an operator in postgres', 'select 1 # 2', 'select 1'],
  ['// is an operator outside snowflake', 'select 7 // 2', 'select 7', 'unknown'],
  ['jinja statement glued to a name', '{{ x }}{% if y %}_a{% endif %}', '{{ x }} {% if y %}_a{% endif %}'],
  ['block comment holding jinja', "select 1 /* {{ config(materialized='table') }} */", 'select 1'],
  ['unterminated string', "select 'abc", "select 'abd"],
];

describe('normalizeSql', () => {
  it.each(same)('keeps the normal form: %s', (_label, a, b, adapter) => {
    expect(normal(a, adapter)).toBe(normal(b, adapter));
  });

  it.each(changes)('changes the normal form: %s', (_label, a, b, adapter) => {
    expect(normal(a, adapter)).not.toBe(normal(b, adapter));
  });

  it('writes tokens apart, with jinja and comments holding jinja in normal form', () => {
    const sql = "SELECT {{ref( 'a' )}}.Id, 'X'  -- depends_on: {{ ref('b') }}\nFROM t";
    expect(normal(sql)).toBe("select {{ ref('a') }} . id , 'X' /* {{ ref('b') }} */ from t");
  });

  it.each([
    ["select 'abc", 'postgres'],
    ['select /* abc', 'postgres'],
    ['select /* a /* b */', 'postgres'],
    ['select {{ ref(', 'postgres'],
    ['select {% if', 'postgres'],
    ['select {# x', 'postgres'],
    ['select $$ abc', 'snowflake'],
    ['select $tag$ abc', 'postgres'],
    ["select '''abc", 'bigquery'],
    ['select [abc', 'sqlserver'],
    ['select /*+ hint', 'spark'],
    ['-- {{ ref(', 'postgres'],
    ["select E'\\", 'postgres'],
  ] satisfies [string, AdapterType][])('never throws on unterminated input: %s', (sql, adapter) => {
    expect(typeof normal(sql, adapter)).toBe('string');
  });

  it.each([
    ["select {{ x }}_a, 'b' /* {{ ref('c') }} */ from \"T\"", 'postgres'],
    ['select raw:Foo.Bar[0]::VARCHAR, x :: int', 'snowflake'],
    ["select /*+ BROADCAST(b) */ r'a\\'b', '''c'''", 'spark'],
    ["select r'''a''', `T`", 'bigquery'],
  ] satisfies [string, AdapterType][])('is idempotent: %s', (sql, adapter) => {
    const once = normal(sql, adapter);
    expect(normal(once, adapter)).toBe(once);
  });
});
