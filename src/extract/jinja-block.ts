/**
 * One Jinja block of raw dbt code: `{{ expression }}`, `{% statement %}` or `{# comment #}`.
 * dbt renders Jinja before the warehouse sees any SQL, so a block is found wherever it starts,
 * even inside a SQL string or comment, and it ends where Jinja says, not where SQL would.
 */

export interface JinjaBlock {
  /** Index just past the block (the end of the text when it is never closed). */
  end: number;
  /** The block in normal form; null for a `{# comment #}`, which renders to nothing. */
  text: string | null;
}

const SPACE = 0x20;
const BACKSLASH = 0x5c;
const QUOTE = 0x22;
const BRACE_CLOSE = 0x7d;
const PERCENT = 0x25;
const MINUS = 0x2d;
const PLUS = 0x2b;
const APOSTROPHE = 0x27;

/** True when `code[i]` opens a Jinja block (`{{`, `{%` or `{#`). */
export function opensJinja(code: string, i: number): boolean {
  if (code.charCodeAt(i) !== 0x7b) return false;
  const next = code.charCodeAt(i + 1);
  return next === 0x7b || next === 0x25 || next === 0x23;
}

/**
 * Reads the block that starts at `start` (where `opensJinja` is true). The normal form drops
 * whitespace-control markers (`{%-`, `-%}`, `{{+`, …), since they only move SQL whitespace, and
 * keeps whitespace only where it separates two names (`is not none`); strings stay as written,
 * because Jinja compares them case- and space-sensitively.
 */
export function readJinjaBlock(code: string, start: number): JinjaBlock {
  const kind = code[start + 1];
  if (kind === '#') {
    const close = code.indexOf('#}', start + 2);
    return { end: close < 0 ? code.length : close + 2, text: null };
  }
  const expression = kind === '{';
  const [open, close] = expression ? ['{{', '}}'] : ['{%', '%}'];
  const closer = expression ? BRACE_CLOSE : PERCENT;
  let i = start + 2;
  if (code[i] === '-' || code[i] === '+') i += 1;
  // The body is built from runs of non-blank characters, to keep allocations few.
  let body = '';
  let run = i;
  let depth = 0;
  while (i < code.length) {
    const c = code.charCodeAt(i);
    if (c <= SPACE) {
      body += code.slice(run, i);
      while (i < code.length && code.charCodeAt(i) <= SPACE) i += 1;
      if (isNameCode(body.charCodeAt(body.length - 1)) && isNameCode(code.charCodeAt(i))) body += ' ';
      run = i;
    } else if (depth === 0 && (c === closer || c === MINUS || c === PLUS) && closesAt(code, i, closer)) {
      body += code.slice(run, i);
      return { end: i + (c === closer ? 2 : 3), text: `${open} ${body} ${close}` };
    } else if (c === QUOTE || c === APOSTROPHE) i = skipJinjaString(code, i, c);
    else {
      if (c === 0x28 || c === 0x5b || c === 0x7b) depth += 1;
      else if ((c === 0x29 || c === 0x5d || c === 0x7d) && depth > 0) depth -= 1;
      i += 1;
    }
  }
  return { end: code.length, text: `${open} ${body}${code.slice(run)}` };
}

/** `}}` / `%}`, optionally after a `-` or `+` whitespace-control marker. */
function closesAt(code: string, i: number, closer: number): boolean {
  const c = code.charCodeAt(i);
  if (c === closer) return code.charCodeAt(i + 1) === BRACE_CLOSE;
  return code.charCodeAt(i + 1) === closer && code.charCodeAt(i + 2) === BRACE_CLOSE;
}

/** Jinja strings are Python's: a backslash escapes the next character. */
function skipJinjaString(code: string, start: number, quote: number): number {
  let i = start + 1;
  while (i < code.length) {
    const c = code.charCodeAt(i);
    if (c === BACKSLASH) i += 2;
    else if (c === quote) return i + 1;
    else i += 1;
  }
  return code.length;
}

/** Letters, digits, `_` and anything non-ASCII: the characters a Jinja name or number is made of. */
function isNameCode(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c >= 0x80;
}
