import { S3Client } from '@aws-sdk/client-s3';
import type { S3Settings } from './settings.js';

/**
 * One SDK client per store. Credentials come only from the SDK's default chain (environment,
 * profile, SSO, web identity, instance role). Checksums only WHEN_REQUIRED: newer SDKs otherwise
 * send bodies aws-chunked with a trailer, which Ceph 16 and other S3-compatible servers refuse.
 * The SDK retries throttling, 5xx and network errors with jittered backoff (`max_attempts`).
 */
export function makeS3Client(settings: S3Settings): S3Client {
  // The pinned SDK runs on Node 20; its notice about future releases would land in every CI log.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const agent = { keepAlive: true, maxSockets: settings.parallel };
  return new S3Client({
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    ...(settings.region ? { region: settings.region } : {}),
    // Custom endpoints (Ceph, MinIO, R2 through a proxy) rarely have wildcard DNS for buckets.
    forcePathStyle: settings.pathStyle ?? settings.endpoint !== null,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: settings.maxAttempts,
    retryMode: 'standard',
    requestHandler: { connectionTimeout: Math.min(settings.timeoutMs, 10_000), requestTimeout: settings.timeoutMs, httpAgent: agent, httpsAgent: agent },
  });
}
