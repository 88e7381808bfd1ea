import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dialectFor, type AdapterType } from '../../../src/extract/sql-dialect.js';
import { normalizeSql } from '../../../src/extract/sql-tokens.js';

/**
 * The SQL normal form, on generated SQL: a stream of names, numbers, string literals and
 * punctuation, joined by generated whitespace and comments. It must be a fixed point, ignore
 * every whitespace and comment edit, and never ignore a changed literal or name.
 */
type Token = { kind: 'name' | 'number' | 'literal' | 'punct'; text: string };

const nameArb = fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/).map((text): Token => ({ kind: 'name', text }));
const numberArb = fc.nat({ max: 99_999 }).map((n): Token => ({ kind: 'number', text: String(n) }));
// Quotes doubled inside, as SQL escapes them; no backslash, `$`, `{` or `#`, which dialects read differently.
const literalArb = fc.stringMatching(/^[a-zA-Z0-9 ,.;:()*+=<>%-]{0,12}$/).map((body): Token => ({ kind: 'literal', text: `'${body}'` }));
const punctArb = fc.constantFrom(...',;()=<>+*/.%-').map((text): Token => ({ kind: 'punct', text }));
const tokensArb = fc.array(fc.oneof(nameArb, numberArb, literalArb, punctArb), { minLength: 1, maxLength: 25 });

/** Whitespace or a comment, never nothing: two tokens must stay two tokens. */
const separatorArb = fc.oneof(
  fc.constantFrom(' ', '  ', '\n', '\t', '\r\n', ' \n\t '),
  fc.stringMatching(/^[a-z ]{0,10}$/).map((text) => ` -- ${text}\n`),
  fc.stringMatching(/^[a-z ]{0,10}$/).map((text) => ` /* ${text} */ `),
  fc.stringMatching(/^[a-z ]{0,10}$/).map((text) => ` {# ${text} #} `),
);

const adapterArb = fc.constantFrom<AdapterType>('postgres', 'snowflake', 'bigquery', 'duckdb', 'redshift', 'spark', 'sqlserver');

function join(tokens: Token[], separators: string[]): string {
  return tokens.map((t, i) => (i === 0 ? t.text : `${separators[i % separators.length] ?? ' '}${t.text}`)).join('');
}

const normal = (sql: string, adapter: AdapterType): string => normalizeSql(sql, dialectFor(adapter));
const separatorsArb = fc.array(separatorArb, { minLength: 1, maxLength: 6 });

describe('normalizeSql on generated SQL', () => {
  it('is idempotent', () => {
    fc.assert(
      fc.property(tokensArb, separatorsArb, adapterArb, (tokens, separators, adapter) => {
        const once = normal(join(tokens, separators), adapter);
        expect(normal(once, adapter)).toBe(once);
      }),
      { numRuns: 300 },
    );
  });

  it('ignores whitespace and comments between tokens, and the case of names', () => {
    fc.assert(
      fc.property(tokensArb, separatorsArb, separatorsArb, adapterArb, (tokens, a, b, adapter) => {
        const shouted = tokens.map((t) => (t.kind === 'name' ? { ...t, text: t.text.toUpperCase() } : t));
        expect(normal(join(shouted, b), adapter)).toBe(normal(join(tokens, a), adapter));
      }),
      { numRuns: 300 },
    );
  });

  it('never ignores a changed literal or name', () => {
    const changed = fc.tuple(tokensArb, fc.nat(), fc.oneof(nameArb, literalArb)).filter(([tokens, at, replacement]) => {
      const old = tokens[at % tokens.length]!;
      return old.kind === replacement.kind && old.text.toLowerCase() !== replacement.text.toLowerCase();
    });
    fc.assert(
      fc.property(changed, separatorsArb, adapterArb, ([tokens, at, replacement], separators, adapter) => {
        const edited = tokens.map((t, i) => (i === at % tokens.length ? replacement : t));
        expect(normal(join(edited, separators), adapter)).not.toBe(normal(join(tokens, separators), adapter));
      }),
      { numRuns: 300 },
    );
  });

  it('never ignores a change of case inside a literal', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{1,8}$/), separatorsArb, adapterArb, (body, separators, adapter) => {
        const sql = (text: string): string =>
          join(
            [
              { kind: 'name', text: 'select' },
              { kind: 'literal', text: `'${text}'` },
            ],
            separators,
          );
        expect(normal(sql(body.toUpperCase()), adapter)).not.toBe(normal(sql(body), adapter));
      }),
      { numRuns: 100 },
    );
  });
});
