/**
 * What looks like a credential, for the places dbtattic keeps text it did not choose: `run`'s
 * command line, `metadata.env` of artifacts, names in dbtattic.yml. A guess by name and shape,
 * erring towards redacting: a redacted path costs little, a stored password a lot.
 */

export const REDACTED = '***';

/** A name part that marks a credential: DBT_PASSWORD, api-key, DBT_ENV_SECRET_X, --token. */
const SECRET_PART = /^(pass|password|passwd|passphrase|pwd|secret|secrets|token|apikey|key|credential|credentials|auth|authorization|session|cookie|sig|signature|private|privatekey)$/i;

/** True when a variable, key or flag name says it holds a credential. */
export function isSecretName(name: string): boolean {
  return name
    .replace(/^-+/, '')
    .split(/[_\-.]+|(?<=[a-z])(?=[A-Z])/)
    .some((part) => SECRET_PART.test(part));
}

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

/**
 * A command line as it may be stored: the value after `--vars`, after a flag named like a
 * credential (`--password x`, `--token=x`), and of `KEY=value` where KEY is named like one,
 * replaced by ***.
 */
export function redactArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  let redactNext = false;
  for (const arg of argv) {
    if (redactNext && !arg.startsWith('--')) {
      out.push(REDACTED);
      redactNext = false;
      continue;
    }
    redactNext = false;
    out.push(redactArg(arg));
    if (arg.startsWith('-') && !arg.includes('=') && (VALUE_FLAGS.has(arg) || isSecretName(arg))) redactNext = true;
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
 * value up to the next flag, and the value of a flag named like a credential, replaced by ***.
 */
export function redactCommandLine(text: string): string {
  return text
    .replace(/(--vars(?:=|\s+))(.*?)(?=\s--[A-Za-z]|$)/gs, `$1${REDACTED}`)
    .replace(/(\s--?([A-Za-z][\w-]*)(?:=|\s+))(\S+)/g, (whole: string, flag: string, name: string) => (isSecretName(name) ? `${flag}${REDACTED}` : whole));
}

/** Values of credential-named keys at any depth of a JSON value (dbt vars nest). */
export function redactNested(value: unknown, depth = 0): unknown {
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactNested(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, isSecretName(key) ? REDACTED : redactNested(item, depth + 1)]));
}
