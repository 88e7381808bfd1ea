import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readRegularFile, readRegularFileHashed } from '../../../src/capture/regular-file.js';

const sha = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Files are read in pieces, each hashed while the next is read (regular-file.ts). */
describe('reading a file in target/ with its hash', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'attic-regular-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('gives every byte, in order, and their SHA-256, for a file of several pieces', async () => {
    const file = path.join(root, 'big.json');
    // Past two pieces of 4 MiB, and not a multiple of one.
    writeFileSync(file, randomBytes(9 * 1024 * 1024 + 3));
    const { bytes, sha256 } = await readRegularFileHashed(file);
    const expected = readFileSync(file);
    expect(bytes.equals(expected)).toBe(true);
    expect(sha256).toBe(sha(expected));
  });

  it('gives an empty file as no bytes, with the hash of nothing', async () => {
    const file = path.join(root, 'empty.json');
    writeFileSync(file, '');
    const { bytes, sha256 } = await readRegularFileHashed(file);
    expect(bytes.length).toBe(0);
    expect(sha256).toBe(sha(Buffer.alloc(0)));
  });

  // /proc files say they hold nothing and then give bytes: a file that outgrew its size.
  it.runIf(process.platform === 'linux')('reads on past the size a file said it had, and hashes all it read', async () => {
    const { bytes, sha256 } = await readRegularFileHashed('/proc/self/status');
    expect(bytes.toString('utf8')).toMatch(/^Name:/);
    expect(sha256).toBe(sha(bytes));
  });

  it.runIf(process.platform === 'linux')('refuses a file that grows past the bound while it is read', async () => {
    await expect(readRegularFile('/proc/self/status', 100)).rejects.toThrow(/more than 100 bytes/);
  });
});
