import { AtticError } from '../../../errors.js';
import { formatS3Uri, type S3Location } from './location.js';

/** What the SDK tells us about a failed request, read defensively: its errors are plain objects. */
export interface SdkFailure {
  name?: string;
  code?: string;
  message?: string;
  /** S3's RequestTimeTooSkewed names both clocks. */
  RequestTime?: string;
  ServerTime?: string;
  $metadata?: { httpStatusCode?: number; attempts?: number };
}

export function statusOf(error: unknown): number | undefined {
  return (error as SdkFailure | undefined)?.$metadata?.httpStatusCode;
}

export function isMissing(error: unknown): boolean {
  const e = error as SdkFailure;
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || (statusOf(error) === 404 && e?.name !== 'NoSuchBucket');
}

const NETWORK = ['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE'];

/** Turns an SDK failure into a message naming the bucket, what went wrong, and the fix. */
export function remoteError(error: unknown, location: S3Location, endpoint: string | null, operation: string): AtticError {
  const e = (error ?? {}) as SdkFailure;
  const where = formatS3Uri(location);
  const server = endpoint ?? 'AWS S3';
  const status = statusOf(error);
  const base = { store: where, operation, status: status ?? null, error: e.name ?? e.code ?? null };
  if (e.name === 'NoSuchBucket') {
    return new AtticError(
      'remote',
      `The bucket '${location.bucket}' does not exist at ${server}. Create it, or fix the store URI (${where}) or the endpoint (AWS_ENDPOINT_URL).`,
      base,
    );
  }
  if (e.name === 'RequestTimeTooSkewed' || e.code === 'RequestTimeTooSkewed') return clockSkew(e, where, base);
  if (status === 403 || e.name === 'AccessDenied' || e.name === 'InvalidAccessKeyId' || e.name === 'SignatureDoesNotMatch') {
    return new AtticError(
      'remote',
      `Access to ${where} was denied (${operation}: ${e.name ?? status}). Check the credentials the AWS chain finds (AWS_PROFILE, AWS_ACCESS_KEY_ID, AWS_ROLE_ARN with a web identity token) and grant them s3:GetObject, s3:PutObject, s3:DeleteObject and s3:ListBucket on bucket '${location.bucket}'.`,
      base,
    );
  }
  if (e.name === 'CredentialsProviderError' || (/credential/i.test(e.message ?? '') && status === undefined)) {
    return new AtticError(
      'remote',
      `No AWS credentials found for ${where}. Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or a web identity (AWS_ROLE_ARN + AWS_WEB_IDENTITY_TOKEN_FILE, as GitHub OIDC gives).`,
      base,
    );
  }
  // The SDK refuses before sending anything: no retry helps, the settings must change.
  if (status === undefined && /region is missing/i.test(e.message ?? '')) {
    return new AtticError(
      'remote',
      `No AWS region is set for ${where}. Set AWS_REGION (or AWS_DEFAULT_REGION, or 's3: region' in dbtattic.yml); any region will do for a server that has none.`,
      base,
    );
  }
  const code = e.code ?? (e.name === 'TimeoutError' ? 'ETIMEDOUT' : undefined);
  if ((code && NETWORK.includes(code)) || e.name === 'TimeoutError' || e.name === 'RequestTimeout') {
    return new AtticError(
      'remote',
      `Cannot reach ${server} for bucket '${location.bucket}' (${operation}: ${code ?? e.name}). Check the endpoint (AWS_ENDPOINT_URL, 's3: endpoint'), the network, and that the server is up; then run the command again.`,
      base,
    );
  }
  return new AtticError(
    'remote',
    `${server} failed ${operation} on ${where}: ${e.name ?? 'error'}${status ? ` (HTTP ${status})` : ''}: ${e.message ?? String(error)}. Try again; if it persists, check the server.`,
    base,
  );
}

/** A clock far from the server's is refused with a 403 like bad keys: the message names the clocks, not the credentials. */
function clockSkew(e: SdkFailure, where: string, base: Record<string, unknown>): AtticError {
  const ours = e.RequestTime ?? new Date().toISOString();
  const theirs = e.ServerTime ? `, the server's ${e.ServerTime}` : '';
  return new AtticError(
    'remote',
    `The S3 server refused ${where}: this machine's clock is too far from the server's (this machine's ${ours}${theirs}). Set the clock right (NTP), then run the command again; the credentials are not the problem.`,
    base,
  );
}
