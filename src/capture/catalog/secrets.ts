import { AtticError } from '../../errors.js';
import type { CatalogConfig, HttpAuthConfig } from './config.js';

/**
 * Credentials come only from environment variables named in the config, and their values
 * never leave this process in a snapshot, a reason or an error: servers do echo what they
 * were sent (a 401 page quoting the Authorization header, an OAuth error quoting the form),
 * so every string we return goes through `mask` first, in each form a value travels in.
 */

type Env = Record<string, string | undefined>;

const MASK = '***';

export class SecretMask {
  private readonly values = new Set<string>();

  /** Registers a secret in each encoding it may come back in. */
  add(secret: string): void {
    if (secret === '') return;
    this.values.add(secret);
    this.values.add(encodeURIComponent(secret));
    this.values.add(new URLSearchParams({ v: secret }).toString().slice(2));
    this.values.add(Buffer.from(secret).toString('base64'));
    // Inside a longer base64 text (a Basic header, an echoed body) the secret may start at any
    // byte of a 3-byte group: mask the characters that depend on its bytes alone, at each alignment.
    for (const offset of [0, 1, 2]) {
      const core = base64Core(Buffer.from(secret), offset);
      if (core.length >= 8) {
        this.values.add(core);
        this.values.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
      }
    }
  }

  mask(text: string): string {
    // Longest first, so a secret containing another is replaced whole.
    const ordered = [...this.values].sort((a, b) => b.length - a.length);
    return ordered.reduce((masked, secret) => masked.split(secret).join(MASK), text);
  }

  /** Masks only secrets long enough that a chance match inside a hex id is not a worry. */
  maskId(text: string): string {
    return [...this.values].filter((secret) => secret.length >= 8).some((secret) => text.includes(secret)) ? this.mask(text) : text;
  }
}

/** The base64 characters that only `secret`'s bytes decide when it starts `offset` bytes into a group. */
function base64Core(secret: Buffer, offset: number): string {
  const bytes = Buffer.concat([Buffer.alloc(offset), secret]);
  return bytes.toString('base64').slice(Math.ceil(offset / 3) * 4, Math.floor(bytes.length / 3) * 4);
}

/** Registers every credential the config names, before any request: a failure anywhere is then masked too. */
export function registerSecrets(config: CatalogConfig, env: Env, mask: SecretMask): void {
  const names = credentialEnvNames(config);
  for (const name of names) mask.add(env[name] ?? '');
  const auth = 'auth' in config ? config.auth : undefined;
  if (auth?.usernameEnv !== undefined && auth.passwordEnv !== undefined) {
    mask.add(`${env[auth.usernameEnv] ?? ''}:${env[auth.passwordEnv] ?? ''}`);
  }
}

function credentialEnvNames(config: CatalogConfig): string[] {
  const auth = 'auth' in config ? config.auth : {};
  const oauth = config.provider === 'iceberg-rest' ? config.oauth : undefined;
  return [auth.tokenEnv, auth.usernameEnv, auth.passwordEnv, oauth?.clientIdEnv, oauth?.clientSecretEnv].filter((name): name is string => name !== undefined);
}

/** The value of a credential variable; a missing one is a failure that names the variable and the key. */
export function readCredential(env: Env, name: string, key: string): string {
  const value = env[name];
  if (value === undefined || value === '') {
    throw new AtticError('catalog', `environment variable ${name} (named by catalog.${key}) is not set: export it before running dbtattic.`);
  }
  return value;
}

/** The Authorization header for bearer or basic auth, or none. */
export function authorizationHeaders(auth: HttpAuthConfig, env: Env): Record<string, string> {
  if (auth.tokenEnv !== undefined) return { authorization: `Bearer ${readCredential(env, auth.tokenEnv, 'token_env')}` };
  if (auth.usernameEnv !== undefined && auth.passwordEnv !== undefined) {
    const user = readCredential(env, auth.usernameEnv, 'username_env');
    const password = readCredential(env, auth.passwordEnv, 'password_env');
    return { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
  }
  return {};
}
