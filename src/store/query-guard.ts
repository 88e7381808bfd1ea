import { AtticError } from '../errors.js';

/**
 * Words a query may not use, outside strings, quoted names and comments. The store is opened
 * read-only and a query's connection cannot reach files, but DuckDB always lets a database reach
 * its own files: `COPY … TO '<store>.duckdb'` overwrote the store, and `CALL enable_logging(…)`
 * changes logging even with the configuration locked. These are the statements that write files
 * or load code; none answers a question about history.
 */
const REFUSED = new Set(['copy', 'export', 'import', 'attach', 'detach', 'install', 'load', 'enable_logging']);

/** Refuses SQL that uses a refused word, before DuckDB sees it. */
export function guardQuery(sql: string): void {
  for (const word of sqlWords(sql)) {
    if (!REFUSED.has(word)) continue;
    throw new AtticError(
      'query-refused',
      `The store is read-only to queries; the statement was refused and nothing changed (${word.toUpperCase()} could write files or load code; a column or table named ${word} is written "${word}").`,
    );
  }
}

/**
 * The unquoted words of DuckDB SQL, lower-cased. Where this reading and DuckDB's could differ,
 * it errs towards seeing more words (a refusal), never fewer: block comments do not nest here
 * (in DuckDB they may, which only hides more from DuckDB), and a backslash escapes a quote only
 * in an E'…' string, as in DuckDB.
 */
export function* sqlWords(sql: string): Generator<string> {
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === '-' && sql[i + 1] === '-') i = lineEnd(sql, i);
    else if (c === '/' && sql[i + 1] === '*') i = blockEnd(sql, i);
    else if (c === "'") i = quotedEnd(sql, i, "'", false);
    else if (c === '"') i = quotedEnd(sql, i, '"', false);
    else if (c === '$' && dollarTag(sql, i) !== null) i = dollarEnd(sql, i, dollarTag(sql, i)!);
    else if (isWordStart(c)) {
      const start = i;
      while (i < sql.length && isWordPart(sql[i]!)) i++;
      const word = sql.slice(start, i).toLowerCase();
      // E'…' (and e'…'): backslash escapes inside.
      if ((word === 'e') && sql[i] === "'") i = quotedEnd(sql, i, "'", true);
      else yield word;
    } else i++;
  }
}

function lineEnd(sql: string, i: number): number {
  const end = sql.indexOf('\n', i);
  return end === -1 ? sql.length : end + 1;
}

function blockEnd(sql: string, i: number): number {
  const end = sql.indexOf('*/', i + 2);
  return end === -1 ? sql.length : end + 2;
}

/** Past the closing quote; a doubled quote is one quote, and with `escapes` so is a backslashed one. */
function quotedEnd(sql: string, i: number, quote: string, escapes: boolean): number {
  let j = i + 1;
  while (j < sql.length) {
    if (escapes && sql[j] === '\\') j += 2;
    else if (sql[j] === quote && sql[j + 1] === quote) j += 2;
    else if (sql[j] === quote) return j + 1;
    else j++;
  }
  return sql.length;
}

/** `$tag$` or `$$` opening a dollar-quoted string at i; null for `$1` (a parameter) or a lone `$`. */
function dollarTag(sql: string, i: number): string | null {
  const match = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 66));
  return match ? match[0] : null;
}

function dollarEnd(sql: string, i: number, tag: string): number {
  const end = sql.indexOf(tag, i + tag.length);
  return end === -1 ? sql.length : end + tag.length;
}

function isWordStart(c: string): boolean {
  return /[A-Za-z_\u0080-\uffff]/.test(c);
}

function isWordPart(c: string): boolean {
  return /[A-Za-z0-9_$\u0080-\uffff]/.test(c);
}
