import { AtticError } from '../../errors.js';
import { stripUrlCredentials } from '../url-credentials.js';

/**
 * The one way catalog providers talk HTTP: every request shares the snapshot's deadline
 * (an AbortSignal), redirects are refused rather than followed with our Authorization header,
 * bodies are size-capped, and every failure becomes an AtticError('catalog') whose message
 * says what was asked, what came back, and what to change.
 */

export interface HttpContext {
  fetch: typeof fetch;
  signal: AbortSignal;
  timeoutMs: number;
  /** Masks credentials in a server's message before it is cut short, so no part of one survives the cut. */
  mask?: { mask(text: string): string };
}

export interface HttpRequest {
  /** What we were asking for, in words: "Nessie reference 'main'". */
  what: string;
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Credentials travel in the body (an OAuth2 token request) rather than in an Authorization header. */
  sendsCredentials?: boolean;
}

/** Iceberg table metadata with a long snapshot history runs to megabytes; beyond this, something is wrong. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;
const MAX_UPSTREAM_MESSAGE = 200;

export class HttpStatusError extends AtticError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super('catalog', message, { status });
  }
}

export async function requestBytes(ctx: HttpContext, request: HttpRequest): Promise<Buffer> {
  const response = await send(ctx, request);
  const body = await readBody(ctx, request, response);
  if (response.status >= 200 && response.status < 300) return body;
  if (response.status >= 300 && response.status < 400) {
    const location = stripUrlCredentials(response.headers.get('location') ?? '(no location)');
    throw new HttpStatusError(
      response.status,
      `${request.what}: redirected (HTTP ${response.status}) to ${location}; set the URI in dbtattic.yml to the final address.`,
    );
  }
  const sentCredentials = request.sendsCredentials === true || request.headers?.authorization !== undefined;
  throw new HttpStatusError(
    response.status,
    `${request.what}: HTTP ${response.status}${statusHint(response.status, sentCredentials)}${upstreamMessage(body, ctx.mask)}`,
  );
}

export async function requestJson(ctx: HttpContext, request: HttpRequest): Promise<unknown> {
  return parseJsonBody(await requestBytes(ctx, request), request.what);
}

export function parseJsonBody(body: Buffer, what: string): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new AtticError('catalog', `${what}: the server answered with malformed JSON (${body.length} bytes).`);
  }
}

async function send(ctx: HttpContext, request: HttpRequest): Promise<Response> {
  try {
    return await ctx.fetch(request.url, {
      method: request.method ?? 'GET',
      headers: { accept: 'application/json', ...request.headers },
      body: request.body,
      signal: ctx.signal,
      redirect: 'manual',
    });
  } catch (error) {
    throw transportError(ctx, request, error);
  }
}

async function readBody(ctx: HttpContext, request: HttpRequest, response: Response): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    if (response.body === null) return Buffer.alloc(0);
    for await (const chunk of response.body) {
      size += chunk.byteLength;
      if (size > MAX_BODY_BYTES) {
        await response.body.cancel();
        throw new AtticError('catalog', `${request.what}: the answer exceeds ${MAX_BODY_BYTES} bytes; is the URI right?`);
      }
      chunks.push(Buffer.from(chunk));
    }
  } catch (error) {
    throw error instanceof AtticError ? error : transportError(ctx, request, error);
  }
  return Buffer.concat(chunks);
}

function transportError(ctx: HttpContext, request: HttpRequest, error: unknown): AtticError {
  if (ctx.signal.aborted)
    return new AtticError('catalog', `${request.what}: no answer within ${ctx.timeoutMs} ms; raise catalog.timeout_ms or check that the server is up.`);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const code = typeof cause === 'object' && cause !== null && 'code' in cause ? String(cause.code) : String(cause);
  return new AtticError('catalog', `${request.what}: could not reach ${new URL(request.url).origin} (${code}).`);
}

function statusHint(status: number, sentCredentials: boolean): string {
  if (status === 401 && sentCredentials) return ' (credentials refused: check the values of the variables named by the catalog.*_env keys)';
  if (status === 401) return ' (authentication required: set catalog.token_env, or the basic or OAuth2 credential variables, and export them)';
  if (status === 403) return ' (the credentials were refused for this resource)';
  if (status === 404) return ' (not found: check the names in dbtattic.yml)';
  return '';
}

/** The server's own explanation, from the error shapes Nessie, lakeFS, Iceberg and OAuth2 use. */
function upstreamMessage(body: Buffer, mask?: { mask(text: string): string }): string {
  let text = body.toString('utf8').trim();
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    text = pickMessage(parsed) ?? text;
  } catch {
    // Not JSON: an HTML error page or plain text; its start is the best we have.
  }
  text = (mask ? mask.mask(text) : text).replace(/\s+/g, ' ').slice(0, MAX_UPSTREAM_MESSAGE);
  return text === '' ? '.' : `: ${text}`;
}

function pickMessage(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const nested = typeof record.error === 'object' && record.error !== null ? (record.error as Record<string, unknown>).message : undefined;
  const candidates = [record.message, nested, record.error_description, record.error];
  return candidates.find((candidate): candidate is string => typeof candidate === 'string' && candidate !== '');
}
