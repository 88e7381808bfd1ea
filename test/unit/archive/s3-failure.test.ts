import { describe, expect, it } from 'vitest';
import { bareEtag } from '../../../src/archive/backends/s3/backend.js';
import { isMissing, remoteError, statusOf } from '../../../src/archive/backends/s3/failure.js';

/**
 * How an S3 failure reaches the user (docs/remote-stores.md): which failures mean "no such key", and the
 * message each kind of failure gets, naming the bucket, what went wrong and the fix. The SDK's
 * errors are plain objects with a name, maybe a code, and the HTTP status in $metadata.
 */
const where = { bucket: 'team-bucket', prefix: 'dbt/' };
const failure = (name: string | undefined, status?: number, extra: Record<string, unknown> = {}): unknown => ({
  ...(name ? { name } : {}),
  ...(status ? { $metadata: { httpStatusCode: status } } : {}),
  ...extra,
});

describe('an S3 failure', () => {
  it('is a missing key for NoSuchKey, NotFound or a 404 of anything but a missing bucket', () => {
    expect(isMissing(failure('NoSuchKey'))).toBe(true);
    expect(isMissing(failure('NotFound'))).toBe(true);
    expect(isMissing(failure('Unknown', 404))).toBe(true);
    expect(isMissing(failure('NoSuchBucket', 404))).toBe(false);
    expect(isMissing(failure('AccessDenied', 403))).toBe(false);
    expect(isMissing(undefined)).toBe(false);
    expect(statusOf(failure('x', 503))).toBe(503);
    expect(statusOf(new Error('plain'))).toBeUndefined();
  });

  it('names the clocks, not the credentials, when the server says this clock is too far from its own', () => {
    const skewed = failure('RequestTimeTooSkewed', 403, { RequestTime: '20261210T120000Z', ServerTime: '2026-12-07T12:00:00Z' });
    const error = remoteError(skewed, where, null, 'PUT records/x');
    expect(error.message).toBe(
      "The S3 server refused s3://team-bucket/dbt: this machine's clock is too far from the server's (this machine's 20261210T120000Z, the server's 2026-12-07T12:00:00Z). Set the clock right (NTP), then run the command again; the credentials are not the problem.",
    );
    expect(error.message).not.toMatch(/AWS_ACCESS_KEY_ID|grant them/);
  });

  it('names a missing bucket, with the server it was asked', () => {
    const error = remoteError(failure('NoSuchBucket', 404), where, 'http://127.0.0.1:7480', 'GET FORMAT');
    expect(error).toMatchObject({
      code: 'remote',
      message:
        "The bucket 'team-bucket' does not exist at http://127.0.0.1:7480. Create it, or fix the store URI (s3://team-bucket/dbt) or the endpoint (AWS_ENDPOINT_URL).",
      details: { store: 's3://team-bucket/dbt', operation: 'GET FORMAT', status: 404, error: 'NoSuchBucket' },
    });
    expect(remoteError(failure('NoSuchBucket'), where, null, 'LIST').message).toContain('does not exist at AWS S3.');
  });

  it.each([
    ['a 403', failure('Forbidden', 403), 'Forbidden'],
    ['AccessDenied', failure('AccessDenied'), 'AccessDenied'],
    ['InvalidAccessKeyId', failure('InvalidAccessKeyId'), 'InvalidAccessKeyId'],
    ['SignatureDoesNotMatch', failure('SignatureDoesNotMatch'), 'SignatureDoesNotMatch'],
    ['a 403 without a name', failure(undefined, 403), '403'],
  ])('calls %s denied access, naming the permissions to grant', (_, error, named) => {
    expect(remoteError(error, where, null, 'PUT chunks/ab/cd').message).toBe(
      `Access to s3://team-bucket/dbt was denied (PUT chunks/ab/cd: ${named}). Check the credentials the AWS chain finds (AWS_PROFILE, AWS_ACCESS_KEY_ID, AWS_ROLE_ARN with a web identity token) and grant them s3:GetObject, s3:PutObject, s3:DeleteObject and s3:ListBucket on bucket 'team-bucket'.`,
    );
  });

  it('says no credentials were found, for the provider error or a message about credentials with no answer from the server', () => {
    const missing =
      'No AWS credentials found for s3://team-bucket/dbt. Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or a web identity (AWS_ROLE_ARN + AWS_WEB_IDENTITY_TOKEN_FILE, as GitHub OIDC gives).';
    expect(remoteError(failure('CredentialsProviderError'), where, null, 'GET FORMAT').message).toBe(missing);
    expect(remoteError(failure('Error', undefined, { message: 'Could not load Credentials from any providers' }), where, null, 'GET FORMAT').message).toBe(
      missing,
    );
    // A server that answered did not fail for want of credentials here.
    expect(remoteError(failure('Error', 400, { message: 'bad credential scope' }), where, null, 'GET FORMAT').message).not.toBe(missing);
  });

  it.each(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE'])(
    'calls %s an unreachable server',
    (code) => {
      expect(remoteError(failure('Error', undefined, { code }), where, 'http://127.0.0.1:9', 'HEAD x').message).toBe(
        `Cannot reach http://127.0.0.1:9 for bucket 'team-bucket' (HEAD x: ${code}). Check the endpoint (AWS_ENDPOINT_URL, 's3: endpoint'), the network, and that the server is up; then run the command again.`,
      );
    },
  );

  it('calls a timeout an unreachable server too', () => {
    expect(remoteError(failure('TimeoutError'), where, null, 'GET k').message).toContain("Cannot reach AWS S3 for bucket 'team-bucket' (GET k: ETIMEDOUT)");
    expect(remoteError(failure('RequestTimeout', 400), where, null, 'GET k').message).toContain(
      "Cannot reach AWS S3 for bucket 'team-bucket' (GET k: RequestTimeout)",
    );
  });

  it('reports any other failure as the server said it, with its status when there is one', () => {
    expect(remoteError(failure('InternalError', 500, { message: 'try later' }), where, 'https://s3.example', 'PUT k').message).toBe(
      'https://s3.example failed PUT k on s3://team-bucket/dbt: InternalError (HTTP 500): try later. Try again; if it persists, check the server.',
    );
    expect(remoteError(new TypeError('odd'), where, null, 'LIST').message).toBe(
      'AWS S3 failed LIST on s3://team-bucket/dbt: TypeError: odd. Try again; if it persists, check the server.',
    );
    expect(remoteError(undefined, where, null, 'LIST')).toMatchObject({
      message: 'AWS S3 failed LIST on s3://team-bucket/dbt: error: undefined. Try again; if it persists, check the server.',
      details: { status: null, error: null },
    });
    expect(remoteError(failure(undefined, undefined, { code: 'EWHAT' }), where, null, 'LIST').details).toMatchObject({ error: 'EWHAT' });
    // A code that is not a network one does not make the server unreachable.
    expect(remoteError(failure('InternalError', 500, { code: 'InternalError', message: 'try later' }), where, null, 'PUT k').message).toBe(
      'AWS S3 failed PUT k on s3://team-bucket/dbt: InternalError (HTTP 500): try later. Try again; if it persists, check the server.',
    );
  });

  it('is a remote error whatever went wrong (the kind sets the exit status, errors.ts)', () => {
    for (const error of [
      failure('NoSuchBucket', 404),
      failure('AccessDenied', 403),
      failure('CredentialsProviderError'),
      failure('Error', undefined, { code: 'ECONNREFUSED' }),
      failure('InternalError', 500),
    ]) {
      expect(remoteError(error, where, null, 'GET k').code).toBe('remote');
    }
  });
});

describe('an ETag', () => {
  it('is compared bare: without quotes or a weak marker', () => {
    expect(bareEtag('"abc"')).toBe('abc');
    expect(bareEtag('W/"abc"')).toBe('abc');
    expect(bareEtag('abc')).toBe('abc');
    expect(bareEtag('a"b')).toBe('a"b');
  });
});
