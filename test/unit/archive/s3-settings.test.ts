import { describe, expect, it } from 'vitest';
import { parseS3Uri } from '../../../src/archive/backends/s3/location.js';
import { resolveS3Settings } from '../../../src/archive/backends/s3/settings.js';

describe('s3 store URIs', () => {
  it('splits bucket and prefix', () => {
    expect(parseS3Uri('s3://team-bucket/dbt/prod/')).toEqual({ bucket: 'team-bucket', prefix: 'dbt/prod/' });
    expect(parseS3Uri('s3://team-bucket')).toEqual({ bucket: 'team-bucket', prefix: '' });
  });

  it('refuses credentials in the URI and says where they belong, without echoing them', () => {
    for (const uri of ['s3://AKIAXXXX:secret@bucket/p', 's3://bucket/p?access_key=AKIA&secret=x']) {
      let message = '';
      try {
        parseS3Uri(uri);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/AWS credential chain/);
      expect(message).not.toMatch(/secret@|AKIAXXXX/);
    }
  });

  it('refuses a bad bucket name and dot segments', () => {
    expect(() => parseS3Uri('s3://Bad_Bucket/p')).toThrow(/not a valid bucket name/);
    expect(() => parseS3Uri('s3://bucket/a/../b')).toThrow(/'\.\.'/);
  });
});

describe('s3 settings', () => {
  it('requires TLS except to a loopback address', () => {
    expect(resolveS3Settings(undefined, { AWS_ENDPOINT_URL: 'http://127.0.0.1:7480' }).endpoint).toBe('http://127.0.0.1:7480');
    expect(resolveS3Settings(undefined, { AWS_ENDPOINT_URL: 'http://[::1]:9000' }).endpoint).toBe('http://[::1]:9000');
    expect(resolveS3Settings({ endpoint: 'https://minio.internal' }, {}).endpoint).toBe('https://minio.internal');
    expect(() => resolveS3Settings(undefined, { AWS_ENDPOINT_URL: 'http://minio.internal:9000' })).toThrow(/not HTTPS/);
  });

  it('takes dbtattic.yml over the environment, and checks every key', () => {
    const settings = resolveS3Settings({ region: 'eu-west-1', sse: 'aws:kms', kms_key_id: 'alias/dbt' }, { AWS_REGION: 'us-east-1' });
    expect(settings).toMatchObject({ region: 'eu-west-1', sse: 'aws:kms', kmsKeyId: 'alias/dbt', compareAndSwap: 'auto' });
    expect(() => resolveS3Settings({ sse: 'rot13' }, {})).toThrow(/AES256 or aws:kms/);
    expect(() => resolveS3Settings({ kms_key_id: 'k' }, {})).toThrow(/needs 'sse: aws:kms'/);
    expect(() => resolveS3Settings({ secret_access_key: 'x' }, {})).toThrow(/unknown key/);
    expect(resolveS3Settings(undefined, { DBTATTIC_S3_COMPARE_AND_SWAP: 'off' }).compareAndSwap).toBe('off');
  });
});
