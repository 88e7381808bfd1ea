import { AtticError } from '../../../errors.js';

/** Where an archive lives in object storage: a bucket and a key prefix ('' or ending in '/'). */
export interface S3Location {
  bucket: string;
  prefix: string;
}

// Bucket naming rules of S3 (and every S3-compatible server we know): lower case, digits, dots, dashes.
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * Parses `s3://bucket/prefix`. A URI carrying credentials is refused: they would end up in
 * dbtattic.yml, shell history and CI logs. They belong to the AWS credential chain.
 */
export function parseS3Uri(uri: string): S3Location {
  const match = /^s3:\/\/([^/?#]*)(\/[^?#]*)?([?#].*)?$/i.exec(uri);
  if (!match) throw new AtticError('config', `'${describeUri(uri)}' is not an S3 store URI. Write s3://bucket/prefix.`);
  const [, authority = '', rest = '', query = ''] = match;
  if (authority.includes('@') || /[?&](access|secret|key|token|credential|signature)/i.test(query)) {
    throw new AtticError(
      'config',
      `The store URI '${describeUri(uri)}' carries credentials. Remove them: dbtattic takes credentials only from the AWS credential chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, SSO, web identity such as GitHub OIDC, instance roles).`,
    );
  }
  if (query)
    throw new AtticError(
      'config',
      `The store URI '${describeUri(uri)}' has a query or fragment; dbtattic reads none. Write s3://bucket/prefix, and put settings under 's3:' in dbtattic.yml.`,
    );
  if (!BUCKET.test(authority))
    throw new AtticError('config', `'${authority}' in '${describeUri(uri)}' is not a valid bucket name (3-63 lower-case letters, digits, '.', '-').`);
  const segments = rest.split('/').filter(Boolean);
  if (segments.some((s) => s === '.' || s === '..'))
    throw new AtticError('config', `The store URI '${describeUri(uri)}' has '.' or '..' in its prefix. Write a plain prefix.`);
  return { bucket: authority, prefix: segments.length ? `${segments.join('/')}/` : '' };
}

export function formatS3Uri(location: S3Location): string {
  return `s3://${location.bucket}/${location.prefix}`.replace(/\/$/, '');
}

/** The URI without anything between '//' and '@', for messages. */
export function describeUri(uri: string): string {
  return uri.replace(/^([a-z0-9]+:\/\/)[^/@]*@/i, '$1***@').replace(/\?.*$/, '?***');
}

export function isS3Uri(location: string): boolean {
  return /^s3:\/\//i.test(location);
}
