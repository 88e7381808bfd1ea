/**
 * What looks like a credential, for the places dbtattic keeps text it did not choose: `run`'s
 * command line, `metadata.env` of artifacts, names in dbtattic.yml. A guess by name and shape,
 * erring towards redacting: a redacted path costs little, a stored password a lot.
 */

import { maskSecretShapes, nameParts, REDACTED } from './secret-shapes.js';

export { REDACTED };

/** A name part that marks a credential: DBT_PASSWORD, api-key, DBT_ENV_SECRET_X, --token. */
const SECRET_PART =
  /^(pass|password|passwd|passphrase|pwd|secret|secrets|token|apikey|key|credential|credentials|auth|authorization|session|cookie|sig|signature|private|privatekey)$/i;

/** True when a variable, key or flag name says it holds a credential. */
export function isSecretName(name: string): boolean {
  return nameParts(name.replace(/^-+/, '')).some((part) => SECRET_PART.test(part) || SECRET_SUFFIX.test(part));
}

/** A part ending in a credential's word: PGPASSWORD, MYSQLPWD, APITOKEN. */
const SECRET_SUFFIX = /.(password|passwd|pwd|secret|token)$/i;

/** Token formats of well-known services, and JSON Web Tokens. */
const TOKEN_PREFIX = /^(ghp_|gho_|ghs_|ghu_|ghr_|github_pat_|glpat-|xox[abprs]-|sk-|sk_live_|AKIA|ASIA|eyJ)/;

/**
 * True when text that should be a variable name looks like a secret instead: a known token
 * format, or long and mixing lower case, upper case and digits as generated keys do
 * (variable names are conventionally UPPER_SNAKE_CASE).
 */
export function looksLikeSecretValue(text: string): boolean {
  if (TOKEN_PREFIX.test(text)) return true;
  const mixed = /[a-z]/.test(text) && /[A-Z]/.test(text) && /[0-9]/.test(text);
  return (text.length >= 20 && mixed) || text.length > 100;
}

/** Flags whose value is data that may hold credentials whatever it is called. */
const VALUE_FLAGS = new Set(['--vars']);
/** Short flags whose value is a password in the clients dbt users run (psql, mysql, sqlcmd's -P). */
const PASSWORD_SHORT_FLAGS = new Set(['-p', '-P']);
/** Flags whose value is `user:password` (curl's -u). */
const USER_FLAGS = new Set(['-u', '--user', '--username']);

/**
 * A command line as it may be stored: the value after `--vars`, after a flag named like a
 * credential (`--password x`, `--token=x`) or a password's short flag (`-p x`), and of
 * `KEY=value` where KEY is named like one, replaced by ***; the password of `-u user:password`;
 * and every credential recognised by its shape anywhere (secret-shapes.ts).
 */
export function redactArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  let next: 'redact' | 'user' | null = null;
  for (const arg of argv) {
    const redactThis = next;
    next = null;
    if (redactThis === 'redact' && !arg.startsWith('--')) {
      out.push(REDACTED);
      continue;
    }
    if (redactThis === 'user') {
      out.push(maskSecretShapes(arg.replace(/:.*$/s, `:${REDACTED}`)));
      continue;
    }
    out.push(maskSecretShapes(redactArg(arg)));
    if (!arg.startsWith('-') || arg.includes('=')) continue;
    if (VALUE_FLAGS.has(arg) || isSecretName(arg) || PASSWORD_SHORT_FLAGS.has(arg)) next = 'redact';
    else if (USER_FLAGS.has(arg)) next = 'user';
  }
  return out;
}

function redactArg(arg: string): string {
  const eq = arg.indexOf('=');
  if (eq <= 0) return arg;
  const name = arg.slice(0, eq);
  return VALUE_FLAGS.has(name) || isSecretName(name) ? `${name}=${REDACTED}` : arg;
}

/**
 * A command line kept as one string (dbt's `args.invocation_command`): the rest of a `--vars`
 * value up to the next flag, the value of a flag named like a credential, and every credential
 * recognised by its shape, replaced by ***.
 */
export function redactCommandLine(text: string): string {
  return maskSecretShapes(
    text
      .replace(/(--vars(?:=|\s+))(.*?)(?=\s--[A-Za-z]|$)/gs, `$1${REDACTED}`)
      .replace(/(\s--?([A-Za-z][\w-]*)(?:=|\s+))(\S+)/g, (whole: string, flag: string, name: string) => (isSecretName(name) ? `${flag}${REDACTED}` : whole)),
  );
}

/** Values of credential-like keys at any depth of a JSON value (dbt vars nest), and credentials by shape in every string. */
export function redactNested(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return maskSecretShapes(value);
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactNested(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, isSecretName(key) ? REDACTED : redactNested(item, depth + 1)]));
}
