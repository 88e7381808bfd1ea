import { createHash } from 'node:crypto';

/**
 * Bytes that look random to the chunker but are the same on every run: a test that needs "at
 * least three chunks" or "an edit touches few chunks" must not pass or fail by the luck of
 * `randomBytes` (a 200 kB buffer splits into two chunks now and then).
 */
export function seededBytes(length: number, seed: string): Buffer {
  const out = Buffer.alloc(length);
  for (let block = 0, at = 0; at < length; block++, at += 32) {
    createHash('sha256').update(`${seed}:${block}`).digest().copy(out, at);
  }
  return out;
}
