import type { Agent } from 'node:https';
import { afterEach, describe, expect, it } from 'vitest';
import { makeS3Client } from '../../../src/archive/backends/s3/client.js';
import { resolveS3Settings } from '../../../src/archive/backends/s3/settings.js';

/**
 * The SDK client one store gets (client.ts), read back from the client's resolved config: no
 * request is sent. What a user relies on: path-style addressing for a custom endpoint (Ceph and
 * MinIO rarely have wildcard DNS), checksums only when required (Ceph 16 refuses aws-chunked
 * bodies), the attempts, timeouts and connection pool of `s3:` in dbtattic.yml.
 */
const client = (raw: Record<string, unknown>) => makeS3Client(resolveS3Settings(raw, {}));

/** The request handler's options: the SDK keeps them behind a promise (pinned SDK version). */
async function handlerOptions(
  raw: Record<string, unknown>,
): Promise<{ connectionTimeout?: number; requestTimeout?: number; httpAgentProvider: () => Promise<Agent>; httpsAgent: Agent }> {
  return (client(raw).config.requestHandler as unknown as { configProvider: Promise<never> }).configProvider;
}

const warningVariable = 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED';
const before = process.env[warningVariable];
afterEach(() => {
  if (before === undefined) delete process.env[warningVariable];
  else process.env[warningVariable] = before;
});

describe('the S3 client of a store', () => {
  it('talks to the endpoint and region of the settings, path-style for a custom endpoint unless told', async () => {
    const custom = client({ endpoint: 'http://127.0.0.1:7480', region: 'eu-west-3' });
    expect(await custom.config.endpoint!()).toMatchObject({ protocol: 'http:', hostname: '127.0.0.1', port: 7480 });
    expect(await custom.config.region()).toBe('eu-west-3');
    expect(custom.config.forcePathStyle).toBe(true);
    expect(client({ endpoint: 'https://s3.example', path_style: false }).config.forcePathStyle).toBe(false);
    expect(client({ region: 'eu-west-3' }).config.forcePathStyle).toBe(false);
    expect(client({ region: 'eu-west-3', path_style: true }).config.forcePathStyle).toBe(true);
  });

  it('sends and checks checksums only when required, and retries in standard mode up to max_attempts', async () => {
    const c = client({ region: 'eu-west-3', max_attempts: 3 });
    expect(await c.config.requestChecksumCalculation()).toBe('WHEN_REQUIRED');
    expect(await c.config.responseChecksumValidation()).toBe('WHEN_REQUIRED');
    expect(await c.config.maxAttempts()).toBe(3);
    expect((await c.config.retryStrategy()) as { mode?: string }).toMatchObject({ mode: 'standard' });
  });

  it('abandons a request after timeout_ms, a connection after at most 10 s, over a keep-alive pool of parallel sockets', async () => {
    const slow = await handlerOptions({ region: 'eu-west-3', timeout_ms: 20_000, parallel: 4 });
    expect(slow).toMatchObject({ connectionTimeout: 10_000, requestTimeout: 20_000 });
    for (const agent of [await slow.httpAgentProvider(), slow.httpsAgent]) expect(agent).toMatchObject({ keepAlive: true, maxSockets: 4 });
    expect(await handlerOptions({ region: 'eu-west-3', timeout_ms: 500 })).toMatchObject({ connectionTimeout: 500, requestTimeout: 500 });
  });

  it("silences the SDK's notice about future Node releases, unless the user set it", () => {
    delete process.env[warningVariable];
    client({ region: 'eu-west-3' });
    expect(process.env[warningVariable]).toBe('true');
    process.env[warningVariable] = 'false';
    client({ region: 'eu-west-3' });
    expect(process.env[warningVariable]).toBe('false');
  });
});
