import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SignatureV4 } from '@smithy/signature-v4';

/**
 * GETs of archive objects without the SDK's middleware stack. Restoring a 100 MB manifest is
 * about 1,100 chunk GETs; the SDK spends about 2 ms of CPU on each (stack resolution, serde,
 * endpoint rules, signing), this path about a quarter of that, which decides whether a fresh
 * runner's `state --last-success` meets its 5 s goal.
 *
 * Nothing is decided here that the SDK did not decide: one GET sent through the SDK is the
 * template (endpoint, bucket addressing, signing region and service), and credentials come
 * from the SDK's chain. Only a 200 is answered here; anything else (a missing key, an error,
 * a redirect, throttling, a timeout, a cut connection) returns `undefined` and the caller asks
 * the SDK, with its retries and its error messages.
 */
export interface GetTemplate {
  protocol: string;
  hostname: string;
  port: number | undefined;
  /** The path before the object key ('/bucket/' path-style, '/' virtual-hosted). */
  basePath: string;
  query: Record<string, string>;
  region: string;
  service: string;
}

/** The SHA-256 of an empty body: what the SDK sends as the payload hash of a GET. */
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** The hash class SignatureV4 asks for, on node:crypto. */
type SourceData = string | ArrayBuffer | ArrayBufferView;

class NodeSha256 {
  private readonly hash;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytesOf(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
}

function bytesOf(data: SourceData): string | Uint8Array {
  if (typeof data === 'string') return data;
  return ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);
}

export class DirectGet {
  private readonly signer: SignatureV4;
  private readonly agent: http.Agent;

  constructor(
    client: S3Client,
    private readonly template: GetTemplate,
    private readonly timeoutMs: number,
    parallel: number,
  ) {
    this.signer = new SignatureV4({
      credentials: client.config.credentials,
      region: template.region,
      service: template.service,
      sha256: NodeSha256,
      uriEscapePath: false,
      applyChecksum: false,
    });
    const Agent = template.protocol === 'https:' ? https.Agent : http.Agent;
    this.agent = new Agent({ keepAlive: true, maxSockets: parallel });
  }

  /** The object's bytes and ETag on a 200; `undefined` for anything the SDK should handle. */
  async get(objectKey: string): Promise<{ bytes: Buffer; etag: string } | undefined> {
    const t = this.template;
    const request = {
      method: 'GET',
      protocol: t.protocol,
      hostname: t.hostname,
      port: t.port,
      path: t.basePath + encodeKey(objectKey),
      query: t.query,
      headers: { host: t.port ? `${t.hostname}:${t.port}` : t.hostname, 'x-amz-content-sha256': EMPTY_SHA256 } as Record<string, string>,
    };
    const signed = await this.signer.sign(request);
    const search = new URLSearchParams(t.query).toString();
    return this.fetch({ ...request, path: search ? `${request.path}?${search}` : request.path, headers: signed.headers });
  }

  private fetch(options: http.RequestOptions): Promise<{ bytes: Buffer; etag: string } | undefined> {
    const send = this.template.protocol === 'https:' ? https.request : http.request;
    return new Promise((resolve) => {
      const req = send({ ...options, agent: this.agent, timeout: this.timeoutMs }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('error', () => resolve(undefined));
        res.on('end', () => {
          const bytes = Buffer.concat(parts);
          const length = Number(res.headers['content-length'] ?? bytes.length);
          resolve(res.statusCode === 200 && res.complete && length === bytes.length ? { bytes, etag: String(res.headers.etag ?? '') } : undefined);
        });
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(undefined));
      req.end();
    });
  }
}

/**
 * Records, on a GET sent through the SDK, the signed request it builds: the template of every
 * later GET. `learn` hears `null` when that request is not one this path can repeat.
 */
export function recordTemplate(command: GetObjectCommand, objectKey: string, learn: (template: GetTemplate | null) => void): void {
  // Low priority in the finalize step: after the SDK has signed the request.
  command.middlewareStack.add(
    (next) => async (args) => {
      learn(templateFrom(args.request as SignedRequest, objectKey));
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low', name: 'dbtatticRecordGetTemplate', override: true },
  );
}

interface SignedRequest {
  protocol?: string;
  hostname?: string;
  port?: number;
  path?: string;
  query?: Record<string, string | string[] | null>;
  headers?: Record<string, string>;
}

// Credential=AKID/20261201/us-east-1/s3/aws4_request: plain SigV4 only (not SigV4a, not S3 Express).
const SIGV4 = /^AWS4-HMAC-SHA256 Credential=[^/]+\/\d{8}\/([^/]+)\/([^/]+)\/aws4_request,/;

export function templateFrom(request: SignedRequest, objectKey: string): GetTemplate | null {
  const scope = SIGV4.exec(request.headers?.authorization ?? '');
  const key = encodeKey(objectKey);
  const path = request.path ?? '';
  if (!scope || !request.hostname || !request.protocol || !path.endsWith(key)) return null;
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.query ?? {})) {
    if (typeof value !== 'string') return null;
    query[name] = value;
  }
  return {
    protocol: request.protocol,
    hostname: request.hostname,
    port: request.port,
    basePath: path.slice(0, path.length - key.length),
    query,
    region: scope[1]!,
    service: scope[2]!,
  };
}

/** How the SDK puts a key in a path: each segment URI-encoded, `!'()*` too. */
function encodeKey(key: string): string {
  return key
    .split('/')
    .map((segment) => encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
    .join('/');
}
