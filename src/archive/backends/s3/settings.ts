import { AtticError } from '../../../errors.js';

/**
 * How to reach object storage, from `s3:` in dbtattic.yml and the standard AWS variables.
 * Credentials are never part of it: the SDK's credential chain finds them.
 */
export interface S3Settings {
  endpoint: string | null;
  region: string | null;
  pathStyle: boolean | null;
  sse: 'AES256' | 'aws:kms' | null;
  kmsKeyId: string | null;
  /** 'off' forces the branch-head fallback (a server whose compare-and-swap cannot be trusted). */
  compareAndSwap: 'auto' | 'off';
  /** Quote the ETag in If-Match: null lets the probe decide (Ceph wants it bare, AWS either). */
  quoteEtag: boolean | null;
  /** Concurrent requests per process. */
  parallel: number;
  /** Milliseconds before a request with no answer is abandoned (and retried). */
  timeoutMs: number;
  maxAttempts: number;
}

const SETTING_KEYS = ['endpoint', 'region', 'path_style', 'sse', 'kms_key_id', 'compare_and_swap', 'quote_etag', 'parallel', 'timeout_ms', 'max_attempts'];

/** Reads `s3:` of dbtattic.yml and the environment; the file's keys win over the variables. */
export function resolveS3Settings(raw: unknown, env: Record<string, string | undefined>): S3Settings {
  const s3 = raw === undefined || raw === null ? {} : raw;
  if (typeof s3 !== 'object' || Array.isArray(s3)) throw bad(`'s3' must be a mapping of: ${SETTING_KEYS.join(', ')}`);
  const map = s3 as Record<string, unknown>;
  const unknown = Object.keys(map).filter((k) => !SETTING_KEYS.includes(k));
  if (unknown.length) throw bad(`unknown key(s) under 's3': ${unknown.join(', ')} (known: ${SETTING_KEYS.join(', ')})`);
  const endpoint = text(map.endpoint, 'endpoint') ?? env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL ?? null;
  const settings: S3Settings = {
    endpoint: endpoint ? checkEndpoint(endpoint) : null,
    region: text(map.region, 'region') ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? null,
    pathStyle: flag(map.path_style, 'path_style'),
    sse: sse(map.sse),
    kmsKeyId: text(map.kms_key_id, 'kms_key_id'),
    compareAndSwap: env.DBTATTIC_S3_COMPARE_AND_SWAP === 'off' || map.compare_and_swap === false ? 'off' : 'auto',
    quoteEtag: flag(map.quote_etag, 'quote_etag'),
    parallel: count(map.parallel, 'parallel', 32),
    timeoutMs: count(map.timeout_ms, 'timeout_ms', 30_000),
    maxAttempts: count(map.max_attempts, 'max_attempts', 5),
  };
  if (settings.kmsKeyId && settings.sse !== 'aws:kms') throw bad("'kms_key_id' needs 'sse: aws:kms'");
  return settings;
}

/** Artifacts hold compiled SQL: never send them in clear text, except to this machine. */
function checkEndpoint(endpoint: string): string {
  // Shown without its query: whatever follows '?' may be a token.
  const shown = endpoint.replace(/[?#].*$/s, '?***');
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw bad(`endpoint '${shown}' is not a URL`);
  }
  if (url.username || url.password) throw bad('the endpoint carries credentials; they belong in the AWS credential chain (environment, profile, web identity)');
  if (url.search || url.hash || endpoint.includes('?'))
    throw bad(
      `the endpoint '${shown}' carries a query; an S3 endpoint takes none, and a token there would end up in messages and caches: credentials belong in the AWS credential chain`,
    );
  if (url.protocol === 'https:') return endpoint;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return endpoint;
  throw bad(`endpoint '${shown}' is not HTTPS. Artifacts contain compiled SQL: use https:// (plain http is allowed only to a loopback address)`);
}

export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function text(value: unknown, key: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value === '') throw bad(`'${key}' must be a non-empty string`);
  return value;
}

function flag(value: unknown, key: string): boolean | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'boolean') throw bad(`'${key}' must be true or false`);
  return value;
}

function count(value: unknown, key: string, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw bad(`'${key}' must be a whole number above 0`);
  return value;
}

function sse(value: unknown): S3Settings['sse'] {
  if (value === undefined || value === null) return null;
  if (value === 'AES256' || value === 'aws:kms') return value;
  throw bad("'sse' must be AES256 or aws:kms");
}

function bad(why: string): AtticError {
  return new AtticError('config', `Invalid S3 settings: ${why}. Fix 's3:' in dbtattic.yml or the AWS_* variables.`);
}
