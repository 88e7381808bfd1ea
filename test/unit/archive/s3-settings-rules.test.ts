import { describe, expect, it } from 'vitest';
import { describeUri, formatS3Uri, isS3Uri, parseS3Uri } from '../../../src/archive/backends/s3/location.js';
import { isLoopback, resolveS3Settings } from '../../../src/archive/backends/s3/settings.js';

/**
 * The rules of `s3:` in dbtattic.yml and of store URIs (docs/remote-stores.md), each setting's default and
 * the message a wrong value gets; the cases s3-settings.test.ts leaves out.
 */
const refusal = (raw: unknown, env: Record<string, string> = {}): string => {
  try {
    resolveS3Settings(raw, env);
  } catch (error) {
    return (error as Error).message;
  }
  return '';
};
const invalid = (why: string): string => `Invalid S3 settings: ${why}. Fix 's3:' in dbtattic.yml or the AWS_* variables.`;

describe('s3 settings', () => {
  it('default to AWS with the SDK deciding, 32 requests at once, 30 s and 5 attempts', () => {
    expect(resolveS3Settings(undefined, {})).toEqual({
      endpoint: null,
      region: null,
      pathStyle: null,
      sse: null,
      kmsKeyId: null,
      compareAndSwap: 'auto',
      quoteEtag: null,
      parallel: 32,
      timeoutMs: 30_000,
      maxAttempts: 5,
    });
    expect(resolveS3Settings(null, {})).toEqual(resolveS3Settings({}, {}));
  });

  it('take every key of dbtattic.yml as written', () => {
    expect(
      resolveS3Settings(
        {
          endpoint: 'https://s3.example',
          region: 'eu-west-3',
          path_style: true,
          sse: 'AES256',
          compare_and_swap: false,
          quote_etag: false,
          parallel: 4,
          timeout_ms: 500,
          max_attempts: 2,
        },
        {},
      ),
    ).toEqual({
      endpoint: 'https://s3.example',
      region: 'eu-west-3',
      pathStyle: true,
      sse: 'AES256',
      kmsKeyId: null,
      compareAndSwap: 'off',
      quoteEtag: false,
      parallel: 4,
      timeoutMs: 500,
      maxAttempts: 2,
    });
  });

  it('read the endpoint and region from the AWS variables, the S3-specific ones first', () => {
    const env = { AWS_ENDPOINT_URL_S3: 'https://s3.one', AWS_ENDPOINT_URL: 'https://any.two', AWS_DEFAULT_REGION: 'us-west-2' };
    expect(resolveS3Settings(undefined, env)).toMatchObject({ endpoint: 'https://s3.one', region: 'us-west-2' });
    expect(resolveS3Settings(undefined, { AWS_ENDPOINT_URL: 'https://any.two', AWS_REGION: 'eu-north-1', AWS_DEFAULT_REGION: 'us-west-2' })).toMatchObject({
      endpoint: 'https://any.two',
      region: 'eu-north-1',
    });
  });

  it('refuse what is not a mapping of known keys, naming them', () => {
    const keys = 'endpoint, region, path_style, sse, kms_key_id, compare_and_swap, quote_etag, parallel, timeout_ms, max_attempts';
    expect(refusal(['endpoint'])).toBe(invalid(`'s3' must be a mapping of: ${keys}`));
    expect(refusal('s3://x')).toBe(invalid(`'s3' must be a mapping of: ${keys}`));
    expect(refusal({ bucket: 'b', secret: 'x' })).toBe(invalid(`unknown key(s) under 's3': bucket, secret (known: ${keys})`));
  });

  it.each([
    [{ region: '' }, "'region' must be a non-empty string"],
    [{ region: 3 }, "'region' must be a non-empty string"],
    [{ path_style: 'yes' }, "'path_style' must be true or false"],
    [{ quote_etag: 1 }, "'quote_etag' must be true or false"],
    [{ parallel: 0 }, "'parallel' must be a whole number above 0"],
    [{ timeout_ms: 1.5 }, "'timeout_ms' must be a whole number above 0"],
    [{ max_attempts: '3' }, "'max_attempts' must be a whole number above 0"],
    [{ sse: 'rot13' }, "'sse' must be AES256 or aws:kms"],
    [{ endpoint: 'not a url' }, "endpoint 'not a url' is not a URL"],
    [
      { endpoint: 'https://key:secret@s3.example' },
      'the endpoint carries credentials; they belong in the AWS credential chain (environment, profile, web identity)',
    ],
    [
      { endpoint: 'http://127.0.0.1:7480/?token=SEKRIT' },
      "the endpoint 'http://127.0.0.1:7480/?***' carries a query; an S3 endpoint takes none, and a token there would end up in messages and caches: credentials belong in the AWS credential chain",
    ],
    [
      { endpoint: 'https://s3.example#token=SEKRIT' },
      "the endpoint 'https://s3.example?***' carries a query; an S3 endpoint takes none, and a token there would end up in messages and caches: credentials belong in the AWS credential chain",
    ],
    [{ endpoint: 'not a url?token=SEKRIT' }, "endpoint 'not a url?***' is not a URL"],
    [
      { endpoint: 'ftp://127.0.0.1' },
      "endpoint 'ftp://127.0.0.1' is not HTTPS. Artifacts contain compiled SQL: use https:// (plain http is allowed only to a loopback address)",
    ],
  ])('refuse %j: %s', (raw, why) => {
    expect(refusal(raw)).toBe(invalid(why));
  });

  it('take a one for counts and AWS:KMS with its key', () => {
    expect(resolveS3Settings({ parallel: 1, sse: 'aws:kms', kms_key_id: 'alias/k' }, {})).toMatchObject({ parallel: 1, sse: 'aws:kms', kmsKeyId: 'alias/k' });
  });

  it('allow plain http only to a loopback address', () => {
    for (const host of ['localhost', '::1', '[::1]', '127.0.0.1', '127.10.20.30']) expect(isLoopback(host)).toBe(true);
    for (const host of ['128.0.0.1', '127.0.0', 'x127.0.0.1', '127.0.0.1.example', 'localhost.example', '::2']) expect(isLoopback(host)).toBe(false);
  });
  it('read a key left empty in dbtattic.yml (YAML null) as not set', () => {
    const empty = {
      endpoint: null,
      region: null,
      path_style: null,
      sse: null,
      kms_key_id: null,
      quote_etag: null,
      parallel: null,
      timeout_ms: null,
      max_attempts: null,
    };
    expect(resolveS3Settings(empty, { AWS_ENDPOINT_URL: 'http://127.0.0.1:7480', AWS_REGION: 'eu-west-3' })).toEqual({
      endpoint: 'http://127.0.0.1:7480',
      region: 'eu-west-3',
      pathStyle: null,
      sse: null,
      kmsKeyId: null,
      compareAndSwap: 'auto',
      quoteEtag: null,
      parallel: 32,
      timeoutMs: 30_000,
      maxAttempts: 5,
    });
  });

  it('refuse an endpoint carrying a user name or a password alone, and name the key of a wrong value, as config errors', () => {
    const carries = invalid('the endpoint carries credentials; they belong in the AWS credential chain (environment, profile, web identity)');
    expect(refusal({ endpoint: 'http://key@127.0.0.1:7480' })).toBe(carries);
    expect(refusal({ endpoint: 'http://:secret@127.0.0.1:7480' })).toBe(carries);
    expect(refusal({ endpoint: 7480 })).toBe(invalid("'endpoint' must be a non-empty string"));
    expect(refusal({ sse: 'aws:kms', kms_key_id: '' })).toBe(invalid("'kms_key_id' must be a non-empty string"));
    // The kind sets the exit status (errors.ts).
    expect(() => resolveS3Settings({ parallel: 0 }, {})).toThrow(expect.objectContaining({ code: 'config' }));
  });
});

describe('s3 store URIs', () => {
  it('are told apart from other locations by their scheme, in any case', () => {
    expect(isS3Uri('s3://b/p')).toBe(true);
    expect(isS3Uri('S3://b/p')).toBe(true);
    expect(isS3Uri('./s3://b')).toBe(false);
    expect(isS3Uri('s3:/b')).toBe(false);
  });

  it('are written back without a trailing slash, and with any credentials hidden in messages', () => {
    expect(formatS3Uri({ bucket: 'b', prefix: 'dbt/prod/' })).toBe('s3://b/dbt/prod');
    expect(formatS3Uri({ bucket: 'b', prefix: '' })).toBe('s3://b');
    expect(describeUri('s3://AKIA:secret@bucket/p')).toBe('s3://***@bucket/p');
    expect(describeUri('s3://bucket/p?secret=x')).toBe('s3://bucket/p?***');
    expect(describeUri('s3://bucket/p')).toBe('s3://bucket/p');
  });

  it('name the fault of a URI that is not one, and keep a plain prefix', () => {
    expect(() => parseS3Uri('https://bucket/p')).toThrow("'https://bucket/p' is not an S3 store URI. Write s3://bucket/prefix.");
    expect(() => parseS3Uri('s3://bucket/p#frag')).toThrow("The store URI 's3://bucket/p#frag' has a query or fragment; dbtattic reads none.");
    expect(() => parseS3Uri('s3://bucket/p?region=x')).toThrow(/has a query or fragment/);
    expect(() => parseS3Uri('s3://bucket/p?token=x')).toThrow(/carries credentials/);
    expect(() => parseS3Uri('s3://ab/p')).toThrow("'ab' in 's3://ab/p' is not a valid bucket name (3-63 lower-case letters, digits, '.', '-').");
    expect(() => parseS3Uri('s3://bucket/./p')).toThrow(/has '\.' or '\.\.' in its prefix/);
    expect(parseS3Uri('s3://bucket//a//b')).toEqual({ bucket: 'bucket', prefix: 'a/b/' });
    expect(parseS3Uri(`s3://${'a'.repeat(63)}`)).toEqual({ bucket: 'a'.repeat(63), prefix: '' });
    expect(() => parseS3Uri(`s3://${'a'.repeat(64)}`)).toThrow(/not a valid bucket name/);
    expect(() => parseS3Uri('s3://-bucket')).toThrow(/not a valid bucket name/);
    expect(() => parseS3Uri('s3://bucket-')).toThrow(/not a valid bucket name/);
  });

  it('start with s3:// and are refused as config errors', () => {
    expect(() => parseS3Uri('backup-s3://bucket/p')).toThrow("'backup-s3://bucket/p' is not an S3 store URI. Write s3://bucket/prefix.");
    // The kind sets the exit status (errors.ts): every fault of a URI is the user's to fix.
    for (const uri of ['https://bucket/p', 's3://key@bucket/p', 's3://bucket/p?region=x', 's3://ab/p', 's3://bucket/../p']) {
      expect(() => parseS3Uri(uri)).toThrow(expect.objectContaining({ code: 'config' }));
    }
  });
});
