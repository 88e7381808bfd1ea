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
  const closer = kind === '{' ? '}' : '%';
  let i = start + 2;
  if (code[i] === '-' || code[i] === '+') i += 1;
  let body = '';
  let depth = 0;
  let spaced = false;
  while (i < code.length) {
    const c = code.charCodeAt(i);
    if (c <= SPACE) {
      spaced = true;
      i += 1;
      continue;
    }
    const ch = code[i] ?? '';
    if (depth === 0 && closesAt(code, i, closer)) {
      const end = i + (ch === closer ? 2 : 3);
      return { end, text: `${kind === '{' ? '{{' : '{%'} ${body} ${closer === '}' ? '}}' : '%}'}` };
    }
    let tokenEnd: number;
    if (ch === "'" || ch === '"') tokenEnd = skipJinjaString(code, i, ch);
    else if (isNameCode(c)) tokenEnd = skipName(code, i);
    else {
      tokenEnd = i + 1;
      if (ch === '(' || ch === '[' || ch === '{') depth += 1;
      else if ((ch === ')' || ch === ']' || ch === '}') && depth > 0) depth -= 1;
    }
    if (spaced && isNameCode(c) && isNameCode(body.charCodeAt(body.length - 1))) body += ' ';
    body += code.slice(i, tokenEnd);
    spaced = false;
    i = tokenEnd;
  }
  return { end: code.length, text: `${kind === '{' ? '{{' : '{%'} ${body}` };
}

/** `}}` / `%}`, optionally after a `-` or `+` whitespace-control marker. */
function closesAt(code: string, i: number, closer: string): boolean {
  const ch = code[i];
  if (ch === closer) return code[i + 1] === '}';
  return (ch === '-' || ch === '+') && code[i + 1] === closer && code[i + 2] === '}';
}

/** Jinja strings are Python's: a backslash escapes the next character. */
function skipJinjaString(code: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < code.length) {
    const c = code.charCodeAt(i);
    if (c === BACKSLASH) i += 2;
    else if (code[i] === quote) return i + 1;
    else i += 1;
  }
  return code.length;
}

function skipName(code: string, start: number): number {
  let i = start + 1;
  while (i < code.length && isNameCode(code.charCodeAt(i))) i += 1;
  return i;
}

/** Letters, digits, `_` and anything non-ASCII: the characters a Jinja name or number is made of. */
function isNameCode(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c >= 0x80
  );
}
