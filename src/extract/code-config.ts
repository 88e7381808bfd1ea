/**
 * The config keys a node sets in its own code: `{{ config(unique_key='id') }}` in SQL,
 * `dbt.config(materialized="table")` in Python.
 *
 * Why it matters: dbt renders the arguments of such a call while parsing, so even
 * `unrendered_config` holds them rendered for one target (`target_schema=schema` becomes
 * "dbt_alice"). The code fingerprint already holds the expression as written, and a key set in
 * the code beats any other source in dbt's precedence, so these keys are left out of the config
 * part of the fingerprint instead of counted a second time, rendered (see build-config.ts).
 */

const CONFIG_CALL = /\bconfig\s*\(/g;

export function readCodeConfigKeys(code: string): Set<string> {
  const keys = new Set<string>();
  for (const match of code.matchAll(CONFIG_CALL)) {
    collectKeywordArguments(code, match.index + match[0].length, keys);
  }
  return keys;
}

/** Names followed by `=` (not `==`) at the call's own depth, until its closing parenthesis. */
function collectKeywordArguments(code: string, start: number, keys: Set<string>): void {
  let depth = 1;
  let i = start;
  while (i < code.length && depth > 0) {
    const ch = code[i] ?? '';
    if (ch === "'" || ch === '"') i = skipString(code, i, ch);
    else if ('([{'.includes(ch)) depth += 1;
    else if (')]}'.includes(ch)) depth -= 1;
    else if (depth === 1 && /[A-Za-z_]/.test(ch) && !/[\w.]/.test(code[i - 1] ?? '')) {
      const name = /^[A-Za-z_]\w*/.exec(code.slice(i, i + 100))?.[0] ?? ch;
      const after = /^\s*=(?!=)/.exec(code.slice(i + name.length, i + name.length + 20));
      if (after !== null) keys.add(name);
      i += name.length - 1;
    }
    i += 1;
  }
}

/** Index of the closing quote (Python strings: a backslash escapes the next character). */
function skipString(code: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < code.length && code[i] !== quote) i += code[i] === '\\' ? 2 : 1;
  return i;
}
