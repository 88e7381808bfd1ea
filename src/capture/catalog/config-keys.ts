import { AtticError } from '../../errors.js';
import { looksLikeSecretValue, nearestName } from '../../vocab/index.js';

/**
 * Readers for the keys under `catalog:` in dbtattic.yml. Each failure names the key and the
 * fix. Values of `*_env` keys and of URIs are never repeated in a message: a user who pasted
 * a token where a variable name belongs must not see it echoed into a CI log.
 */

export type RawSection = Record<string, unknown>;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const CREDENTIAL_PARAM = /token|secret|passw|pwd|key|sig|credential|auth|session/i;
export const MAX_TIMEOUT_MS = 120_000;

function fail(key: string, problem: string): never {
  throw new AtticError('config', `catalog.${key} ${problem}`, { key: `catalog.${key}` });
}

export function readString(raw: RawSection, key: string, fallback?: string): string {
  const value = raw[key] ?? fallback;
  if (value === undefined) fail(key, 'is required: add it under catalog: in dbtattic.yml.');
  if (typeof value !== 'string' || value.trim() === '') fail(key, 'must be a non-empty string.');
  return value.trim();
}

export function readOptionalString(raw: RawSection, key: string): string | undefined {
  return raw[key] === undefined ? undefined : readString(raw, key);
}

/** The name of an environment variable holding a credential; never the credential itself. */
export function readEnvName(raw: RawSection, key: string): string | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  // A pasted token can be letters, digits and _ too: one shaped like a secret is refused, unechoed.
  if (typeof value !== 'string' || !ENV_NAME.test(value) || looksLikeSecretValue(value)) {
    fail(
      key,
      'must name an environment variable (letters, digits and _), such as NESSIE_TOKEN; put the secret itself in that variable, never in dbtattic.yml.',
    );
  }
  return value;
}

export function readVariableName(raw: RawSection, key: string): string {
  const value = readString(raw, key);
  if (!ENV_NAME.test(value)) fail(key, 'must name an environment variable (letters, digits and _), such as LAKE_SNAPSHOT_ID.');
  return value;
}

export function readBoolean(raw: RawSection, key: string, fallback: boolean): boolean {
  const value = raw[key] ?? fallback;
  if (typeof value !== 'boolean') fail(key, 'must be true or false.');
  return value;
}

export function readTimeoutMs(raw: RawSection, fallback: number): number {
  const value = raw.timeout_ms ?? fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0 || value > MAX_TIMEOUT_MS) {
    fail('timeout_ms', `must be a whole number of milliseconds between 1 and ${MAX_TIMEOUT_MS}.`);
  }
  return value;
}

export function readArgv(raw: RawSection, key: string): string[] {
  const value = raw[key];
  if (typeof value === 'string') fail(key, 'must be a list of arguments, such as [lakectl, branch, show, ...]: it runs without a shell.');
  if (!Array.isArray(value) || value.length === 0 || value[0] === '' || !value.every((arg): arg is string => typeof arg === 'string')) {
    fail(key, 'must be a list of strings: the program (not empty), then its arguments.');
  }
  return value;
}

export function readOptionalHttpUri(raw: RawSection, key: string): string | undefined {
  return raw[key] === undefined ? undefined : readHttpUri(raw, key);
}

/** An http(s) URL without credentials, query or fragment, and without trailing slashes. */
export function readHttpUri(raw: RawSection, key: string): string {
  const text = readString(raw, key);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    fail(key, 'is not a valid URL: write it as http(s)://host[:port][/path].');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(key, 'must be an http:// or https:// URL.');
  if (url.username !== '' || url.password !== '') {
    fail(key, 'carries credentials (user:password@): remove them and name environment variables instead (token_env, or username_env and password_env).');
  }
  const credentialParam = [...url.searchParams.keys()].find((name) => CREDENTIAL_PARAM.test(name));
  if (credentialParam !== undefined) {
    fail(
      key,
      `carries a credential in its query (?${credentialParam}=…): remove it and set token_env to the name of an environment variable holding the token.`,
    );
  }
  if (url.search !== '' || url.hash !== '') fail(key, 'must not have a query string or fragment: give the base URL only.');
  return text.replace(/\/+$/, '');
}

export function refuseUnknownKeys(raw: RawSection, allowed: readonly string[], provider: string): void {
  const unknown = Object.keys(raw).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) {
    const nearest = nearestName(unknown[0]!, allowed);
    fail(
      unknown[0]!,
      `is not a setting of the ${provider} provider${nearest ? `; did you mean catalog.${nearest}?` : '.'} Its settings are: ${allowed.join(', ')}.`,
    );
  }
}

export function requirePair(raw: RawSection, first: string, second: string): void {
  if ((raw[first] === undefined) !== (raw[second] === undefined)) {
    const missing = raw[first] === undefined ? first : second;
    fail(missing, `is required when ${missing === first ? second : first} is set: they go together.`);
  }
}

export function refuseTogether(raw: RawSection, first: string, second: string): void {
  if (raw[first] !== undefined && raw[second] !== undefined) fail(second, `cannot be combined with catalog.${first}: choose one way to authenticate.`);
}
