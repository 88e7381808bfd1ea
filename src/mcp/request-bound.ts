import { Transform, type Readable } from 'node:stream';

/**
 * JSON-RPC lines from the client, each at most `maxBytes`: a longer one is dropped as it
 * streams in (never held whole) and answered with an Invalid Request error, and the server goes
 * on. Unbounded, a 20 MB request ended the server without a word.
 */
export function boundedRequests(input: Readable, maxBytes: number, answer: (response: string) => void): Readable {
  let line: Buffer[] = [];
  let length = 0;
  let dropping = false;
  let head = '';
  const bounded = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let start = 0;
      while (start < chunk.length) {
        const end = chunk.indexOf(0x0a, start);
        const piece = chunk.subarray(start, end === -1 ? chunk.length : end + 1);
        start += piece.length;
        if (!dropping) {
          line.push(piece);
          length += piece.length;
          if (length > maxBytes + 1) {
            head = Buffer.concat(line).subarray(0, 512).toString('utf8');
            dropping = true;
            line = [];
          }
        }
        if (end === -1) continue;
        if (dropping) answer(tooLarge(head, maxBytes));
        else this.push(Buffer.concat(line));
        line = [];
        length = 0;
        dropping = false;
      }
      done();
    },
  });
  return input.pipe(bounded);
}

function tooLarge(head: string, maxBytes: number): string {
  const id = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)/.exec(head)?.[1];
  const message = `Request too large: over ${maxBytes} bytes (dbtattic mcp --max-request-bytes); it was not read.`;
  return `${JSON.stringify({ jsonrpc: '2.0', id: id === undefined ? null : JSON.parse(id), error: { code: -32600, message } })}\n`;
}
