import { opensJinja, readJinjaBlock } from './jinja-block.js';
import type { SqlDialect } from './sql-dialect.js';

/**
 * The normal form of raw dbt SQL: what is left once everything the warehouse ignores is gone.
 * Comments, whitespace and the case of keywords and unquoted names go; string literals, quoted
 * identifiers and Jinja stay as written (Jinja in normal form, see jinja-block.ts). Two raw codes
 * with the same normal form are taken to build the same data. Tokens are joined by one space,
 * except where Jinja touches a name or literal with nothing between: `{{ target.schema }}_orders`
 * renders one identifier, `{{ target.schema }} _orders` two, so the join keeps that difference.
 * Punctuation is one token per character, so `a<>b` and `a <> b` agree.
 * Known blind spot: bigquery's unquoted table names are case-sensitive, yet folded like the rest.
 * It never throws: an unterminated string or comment runs to the end of the code.
 */
export function normalizeSql(code: string, dialect: SqlDialect): string {
  return new SqlNormalizer(code, dialect).run();
}

type Kind = 'start' | 'punct' | 'word' | 'literal' | 'jinja' | 'comment';

interface Literal {
  end: number;
  text: string;
}

const LF = 0x0a;
const CR = 0x0d;
const BACKSLASH = 0x5c;
const PATH_PUNCT = new Set(['.', '[', ']']);
/** Letters that may prefix a quote to make one literal: E'…' (escapes), N'…', X'…', r'…', b'…'. */
const STRING_PREFIXES = new Set(['e', 'n', 'x', 'r', 'b', 'rb', 'br']);

class SqlNormalizer {
  private i = 0;
  private out = '';
  private prev: Kind = 'start';
  private spaced = false;
  /** Inside a snowflake `col:Path.Elem` path, whose element names are case-sensitive. */
  private inPath = false;

  constructor(
    private readonly code: string,
    private readonly dialect: SqlDialect,
  ) {}

  run(): string {
    const { code } = this;
    while (this.i < code.length) {
      const c = code.charCodeAt(this.i);
      if (isSpaceCode(c)) {
        this.spaced = true;
        this.i += 1;
      } else if (opensJinja(code, this.i)) this.readJinja();
      else if (!this.readComment() && !this.readQuoted(c)) this.readWordOrPunct(c);
    }
    return this.out;
  }

  private emit(text: string, kind: Kind): void {
    const gluable = kind !== 'punct' && kind !== 'comment' && this.prev !== 'punct' && this.prev !== 'comment';
    const touchesJinja = kind === 'jinja' || this.prev === 'jinja';
    const inPath = this.continuesPath(text, kind);
    const glue = inPath || this.prev === 'start' || (!this.spaced && gluable && touchesJinja);
    this.out += glue ? text : ` ${text}`;
    this.prev = kind;
    this.spaced = false;
  }

  private continuesPath(text: string, kind: Kind): boolean {
    if (!this.inPath) return false;
    this.inPath = !this.spaced && (kind === 'word' || kind === 'literal' || PATH_PUNCT.has(text));
    return this.inPath;
  }

  private readJinja(): void {
    const block = readJinjaBlock(this.code, this.i);
    this.i = block.end;
    if (block.text === null) this.spaced = true;
    else this.emit(block.text, 'jinja');
  }

  /** A comment goes unless it holds Jinja: dbt renders that (`-- depends_on: {{ ref('x') }}`). */
  private readComment(): boolean {
    const { code, i, dialect } = this;
    const ch = code[i];
    const next = code[i + 1];
    const lineComment = (ch === '-' && next === '-') || (ch === '/' && next === '/' && dialect.slashComments) || (ch === '#' && dialect.hashComments);
    if (lineComment) this.skipComment(this.lineCommentEnd(i), i);
    else if (ch === '/' && next === '*') {
      if (dialect.optimizerHints && code[i + 2] === '+') this.readHint();
      else this.skipComment(this.blockCommentEnd(i), i);
    } else return false;
    return true;
  }

  private skipComment(end: number, start: number): void {
    const kept = this.jinjaWithin(start, end);
    this.i = end;
    if (kept.length > 0) this.emit(`/* ${kept.join(' ')} */`, 'comment');
    this.spaced = true;
  }

  /** Looks only inside the comment: searching on past its end for a `{` made many comments quadratic. */
  private jinjaWithin(start: number, end: number): string[] {
    const kept: string[] = [];
    let j = start;
    while (j < end) {
      if (opensJinja(this.code, j)) {
        const block = readJinjaBlock(this.code, j);
        if (block.text !== null) kept.push(block.text);
        j = block.end;
      } else j += 1;
    }
    return kept;
  }

  /** The line end; a Jinja block that starts on the line may carry the comment past it. */
  private lineCommentEnd(start: number): number {
    const { code } = this;
    let j = start;
    while (j < code.length) {
      const c = code.charCodeAt(j);
      if (c === LF || c === CR) return j;
      j = opensJinja(code, j) ? readJinjaBlock(code, j).end : j + 1;
    }
    return code.length;
  }

  private blockCommentEnd(start: number): number {
    const { code } = this;
    let depth = 1;
    let j = start + 2;
    while (j < code.length) {
      const ch = code[j];
      if (ch === '*' && code[j + 1] === '/') {
        depth -= 1;
        j += 2;
        if (depth === 0) return j;
      } else if (ch === '/' && code[j + 1] === '*' && this.dialect.nestedComments) {
        depth += 1;
        j += 2;
      } else j = opensJinja(code, j) ? readJinjaBlock(code, j).end : j + 1;
    }
    return code.length;
  }

  /** A spark hint changes the plan, so it stays; only its whitespace is folded. */
  private readHint(): void {
    const end = this.blockCommentEnd(this.i);
    const closed = end - 2 >= this.i + 3 && this.code.startsWith('*/', end - 2);
    const body = this.code
      .slice(this.i + 3, closed ? end - 2 : end)
      .trim()
      .replace(/\s+/g, ' ');
    this.i = end;
    this.emit(`/*+ ${body} */`, 'comment');
  }

  private readQuoted(c: number): boolean {
    const ch = this.code[this.i] ?? '';
    let literal: Literal | null = null;
    if (ch === "'" || ch === '"' || ch === '`') literal = this.readString(this.i, this.dialect.backslashEscapes);
    else if (ch === '[' && this.dialect.bracketIdentifiers) literal = this.readUntil(this.i, 1, ']', true, false);
    else if (c === 0x24 && this.dialect.dollarQuotes !== 'none') literal = this.readDollarQuoted();
    if (literal === null) return false;
    this.i = literal.end;
    this.emit(literal.text, 'literal');
    return true;
  }

  /** '…', "…" or `…` (all kept as written), or bigquery's '''…''' and """…""". */
  private readString(start: number, backslash: boolean): Literal {
    const quote = this.code[start] ?? '';
    const triple = quote.repeat(3);
    if (this.dialect.tripleQuotes && quote !== '`' && this.code.startsWith(triple, start)) {
      return this.readUntil(start, 3, triple, false, true);
    }
    return this.readUntil(start, 1, quote, true, backslash && quote !== '`');
  }

  /** `$$…$$`, or `$tag$…$tag$` where tags are allowed; null when `$` starts a name such as `$1`. */
  private readDollarQuoted(): Literal | null {
    const { code, i } = this;
    if (code[i + 1] === '$') return this.readUntil(i, 2, '$$', false, false);
    if (this.dialect.dollarQuotes !== 'tagged' || !/[A-Za-z_]/.test(code[i + 1] ?? '')) return null;
    const tagEnd = code.indexOf('$', i + 1);
    const tag = tagEnd < 0 ? '' : code.slice(i, tagEnd + 1);
    if (!/^\$[A-Za-z_][A-Za-z0-9_]*\$$/.test(tag)) return null;
    return this.readUntil(i, tag.length, tag, false, false);
  }

  /** The literal from `start` to the closing `close`; Jinja inside it is rendered by dbt, so it is normalised. */
  private readUntil(start: number, openLength: number, close: string, doubled: boolean, backslash: boolean): Literal {
    const { code } = this;
    const first = close.charCodeAt(0);
    let text = '';
    let segment = start;
    let j = start + openLength;
    while (j < code.length) {
      const c = code.charCodeAt(j);
      if (c === BACKSLASH && backslash) j += 2;
      else if (c === first && code.startsWith(close, j)) {
        if (doubled && code.startsWith(close, j + close.length)) j += 2 * close.length;
        else return { end: j + close.length, text: text + code.slice(segment, j + close.length) };
      } else if (opensJinja(code, j)) {
        const block = readJinjaBlock(code, j);
        text += code.slice(segment, j) + (block.text ?? '');
        j = segment = block.end;
      } else j += 1;
    }
    return { end: code.length, text: text + code.slice(segment) };
  }

  private readWordOrPunct(c: number): void {
    const { code } = this;
    const start = this.i;
    if (!isWordCode(c)) {
      this.i += 1;
      this.emitPunct(code[start] ?? '');
      return;
    }
    let j = start + 1;
    while (j < code.length && isWordCode(code.charCodeAt(j))) j += 1;
    const word = code.slice(start, j);
    const lower = word.toLowerCase();
    this.i = j;
    const quote = code[j];
    if ((quote === "'" || quote === '"') && STRING_PREFIXES.has(lower)) {
      const literal = this.readString(j, this.dialect.backslashEscapes || lower === 'e');
      this.i = literal.end;
      this.emit(lower + literal.text, 'literal');
      return;
    }
    const keepCase = this.inPath && !this.spaced;
    this.emit(keepCase ? word : lower, 'word');
  }

  private emitPunct(ch: string): void {
    const { code, i } = this;
    // `i` is already past `ch`: a lone `:` (not `::`) opens a snowflake semi-structured path.
    const lone = ch === ':' && code[i - 2] !== ':' && code[i] !== ':';
    this.emit(ch, 'punct');
    if (lone && this.dialect.caseSensitivePaths) this.inPath = true;
  }
}

function isSpaceCode(c: number): boolean {
  if (c <= 0x20) return true;
  return c >= 0x80 && (c === 0xa0 || c === 0xfeff || c === 0x3000 || (c >= 0x2000 && c <= 0x200b) || c === 0x2028 || c === 0x2029);
}

/** Letters, digits, `_`, `$` and non-ASCII: unquoted names, keywords and numbers (`1e5`). */
function isWordCode(c: number): boolean {
  if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x24) {
    return true;
  }
  return c >= 0x80 && !isSpaceCode(c);
}
