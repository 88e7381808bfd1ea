import { AtticError, isAtticError } from '../../errors.js';
import {
  readArgv,
  readBoolean,
  readEnvName,
  readHttpUri,
  readOptionalHttpUri,
  readOptionalString,
  readString,
  readTimeoutMs,
  refuseTogether,
  readVariableName,
  refuseUnknownKeys,
  requirePair,
  type RawSection,
} from './config-keys.js';

/**
 * The `catalog:` section of dbtattic.yml, written in snake_case, normalised here into one
 * shape per provider. Credentials are never in the file: only the names of the environment
 * variables that hold them.
 */

export const CATALOG_PROVIDERS = ['nessie', 'lakefs', 'iceberg-rest', 'command', 'env'] as const;
export type CatalogProvider = (typeof CATALOG_PROVIDERS)[number];

export const DEFAULT_CATALOG_TIMEOUT_MS = 5_000;

/** Names of environment variables; bearer token and basic auth exclude each other. */
export interface HttpAuthConfig {
  tokenEnv?: string;
  usernameEnv?: string;
  passwordEnv?: string;
}

/** OAuth2 client credentials, exchanged for a bearer token before the first request. */
export interface OAuthConfig {
  clientIdEnv: string;
  clientSecretEnv: string;
  scope: string;
  /** Defaults to `{uri}/v1/oauth/tokens`, the endpoint the Iceberg REST spec deprecates but servers still offer. */
  serverUri?: string;
}

interface CommonConfig {
  timeoutMs: number;
}

export interface NessieConfig extends CommonConfig {
  provider: 'nessie';
  /** The server root, without /api/v1 or /api/v2. */
  uri: string;
  /** `-` is Nessie's name for the server's default branch. */
  ref: string;
  auth: HttpAuthConfig;
}

export interface LakefsConfig extends CommonConfig {
  provider: 'lakefs';
  /** The server root, without /api/v1. */
  endpoint: string;
  repository: string;
  branch: string;
  auth: HttpAuthConfig;
}

export interface IcebergRestConfig extends CommonConfig {
  provider: 'iceberg-rest';
  uri: string;
  warehouse?: string;
  prefix?: string;
  auth: HttpAuthConfig;
  oauth?: OAuthConfig;
}

export interface CommandConfig extends CommonConfig {
  provider: 'command';
  command: string[];
  atomic: boolean;
}

export interface EnvConfig extends CommonConfig {
  provider: 'env';
  variable: string;
  atomic: boolean;
}

export type CatalogConfig = NessieConfig | LakefsConfig | IcebergRestConfig | CommandConfig | EnvConfig;

const COMMON_KEYS = ['provider', 'timeout_ms'];
const HTTP_AUTH_KEYS = ['token_env', 'username_env', 'password_env'];
const ALLOWED_KEYS: Record<CatalogProvider, readonly string[]> = {
  nessie: [...COMMON_KEYS, 'uri', 'ref', ...HTTP_AUTH_KEYS],
  lakefs: [...COMMON_KEYS, 'endpoint', 'repository', 'branch', ...HTTP_AUTH_KEYS],
  'iceberg-rest': [...COMMON_KEYS, 'uri', 'warehouse', 'prefix', 'token_env', 'client_id_env', 'client_secret_env', 'scope', 'oauth2_server_uri'],
  command: [...COMMON_KEYS, 'command', 'atomic'],
  env: [...COMMON_KEYS, 'variable', 'atomic'],
};

/** Why the `catalog:` section cannot be used (its first problem), or null when it can. */
export function catalogConfigProblem(raw: unknown): string | null {
  try {
    parseCatalogConfig(raw);
    return null;
  } catch (error) {
    if (isAtticError(error)) return error.message;
    throw error;
  }
}

/** Validates and normalises the raw YAML value; undefined when there is no `catalog:` section. */
export function parseCatalogConfig(raw: unknown): CatalogConfig | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new AtticError('config', 'catalog must be a mapping with a provider key, such as `catalog: {provider: nessie, uri: http://localhost:19120}`.');
  }
  const section = raw as RawSection;
  const provider = readProvider(section);
  refuseUnknownKeys(section, ALLOWED_KEYS[provider], provider);
  const timeoutMs = readTimeoutMs(section, DEFAULT_CATALOG_TIMEOUT_MS);
  switch (provider) {
    case 'nessie':
      return { provider, timeoutMs, uri: stripApiSuffix(readHttpUri(section, 'uri')), ref: readString(section, 'ref', '-'), auth: readHttpAuth(section) };
    case 'lakefs':
      return {
        provider,
        timeoutMs,
        endpoint: stripApiSuffix(readHttpUri(section, 'endpoint')),
        repository: readString(section, 'repository'),
        branch: readString(section, 'branch', 'main'),
        auth: readHttpAuth(section),
      };
    case 'iceberg-rest':
      return readIcebergConfig(section, timeoutMs);
    case 'command':
      return { provider, timeoutMs, command: readArgv(section, 'command'), atomic: readBoolean(section, 'atomic', false) };
    case 'env':
      return { provider, timeoutMs, variable: readVariableName(section, 'variable'), atomic: readBoolean(section, 'atomic', false) };
  }
}

function readProvider(section: RawSection): CatalogProvider {
  const value = section.provider;
  if (typeof value !== 'string' || !(CATALOG_PROVIDERS as readonly string[]).includes(value)) {
    throw new AtticError('config', `catalog.provider must be one of: ${CATALOG_PROVIDERS.join(', ')}.`, { key: 'catalog.provider' });
  }
  return value as CatalogProvider;
}

function readHttpAuth(section: RawSection): HttpAuthConfig {
  requirePair(section, 'username_env', 'password_env');
  refuseTogether(section, 'token_env', 'username_env');
  return { tokenEnv: readEnvName(section, 'token_env'), usernameEnv: readEnvName(section, 'username_env'), passwordEnv: readEnvName(section, 'password_env') };
}

function readIcebergConfig(section: RawSection, timeoutMs: number): IcebergRestConfig {
  requirePair(section, 'client_id_env', 'client_secret_env');
  refuseTogether(section, 'token_env', 'client_id_env');
  const clientIdEnv = readEnvName(section, 'client_id_env');
  const clientSecretEnv = readEnvName(section, 'client_secret_env');
  const oauth =
    clientIdEnv !== undefined && clientSecretEnv !== undefined
      ? { clientIdEnv, clientSecretEnv, scope: readString(section, 'scope', 'catalog'), serverUri: readOptionalHttpUri(section, 'oauth2_server_uri') }
      : undefined;
  if (oauth === undefined && (section.scope !== undefined || section.oauth2_server_uri !== undefined)) {
    throw new AtticError('config', 'catalog.scope and catalog.oauth2_server_uri need catalog.client_id_env and catalog.client_secret_env.', {
      key: 'catalog.client_id_env',
    });
  }
  return {
    provider: 'iceberg-rest',
    timeoutMs,
    uri: readHttpUri(section, 'uri'),
    warehouse: readOptionalString(section, 'warehouse'),
    prefix: readOptionalString(section, 'prefix')?.replace(/^\/+|\/+$/g, ''),
    auth: { tokenEnv: readEnvName(section, 'token_env') },
    oauth,
  };
}

/** Users paste the URI their Spark or PyIceberg client uses, which ends in the API version. */
function stripApiSuffix(uri: string): string {
  return uri.replace(/\/api\/v[12]$/, '');
}
