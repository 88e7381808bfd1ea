import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP server standing in for a catalog: each test answers as the provider's
 * published API does, and reads back what was sent. Only 127.0.0.1, port chosen by the OS.
 */

export interface SeenRequest {
  method: string;
  url: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: string;
}

export interface Answer {
  status?: number;
  /** An object is sent as JSON; a string is sent as is (for malformed or huge-integer JSON). */
  body?: unknown;
  headers?: Record<string, string>;
}

/** 'hang' never answers: for timeouts. */
export type Handler = (request: SeenRequest) => Answer | 'hang';

export interface FakeServer {
  url: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

export async function startFakeServer(handler: Handler): Promise<FakeServer> {
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    void readRequest(req).then((request) => {
      seen.push(request);
      const answer = handler(request);
      if (answer === 'hang') return;
      const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => closeServer(server) };
}

async function readRequest(req: IncomingMessage): Promise<SeenRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return {
    method: req.method ?? '',
    url: req.url ?? '',
    authorization: req.headers.authorization,
    contentType: req.headers['content-type'],
    body: Buffer.concat(chunks).toString('utf8'),
  };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
