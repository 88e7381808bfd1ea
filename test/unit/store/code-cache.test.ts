import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { requireCompiled } from '../../../src/store/db/code-cache.js';

/**
 * DuckDB's client is run from its bundle with V8's code cache (store/db/code-cache.ts): the file
 * must behave as `require` would run it, with or without a cache, and a cache V8 cannot use
 * (another source, damaged bytes) must change nothing but the time.
 */
const root = mkdtempSync(path.join(os.tmpdir(), 'attic-code-cache-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let files = 0;
/** A CommonJS file that uses what `require` hands a module: exports, require, module, its own names. */
function commonJsFile(body = ''): string {
  const file = path.join(root, `lib-${files++}.cjs`);
  writeFileSync(
    file,
    `const path = require('node:path');
exports.double = (n) => n * 2;
exports.where = () => [__filename, __dirname];
exports.self = this === module.exports;
module.exports.base = path.basename(__filename);
${body}`,
  );
  return file;
}

describe('requireCompiled', () => {
  it('runs a file as require does, when there is no cache', () => {
    const file = commonJsFile();
    const loaded = requireCompiled(file, `${file}.cache`);
    const exported = loaded.exports as { double: (n: number) => number; where: () => string[]; self: boolean; base: string };
    expect(exported.double(21)).toBe(42);
    expect(exported.where()).toEqual([file, path.dirname(file)]);
    expect(exported.self).toBe(true);
    expect(exported.base).toBe(path.basename(file));
    expect(loaded.cacheRejected).toBe(false);
  });

  it('takes the cache it wrote for the same file', () => {
    const file = commonJsFile();
    writeFileSync(`${file}.cache`, requireCompiled(file, `${file}.none`).createCache());
    const again = requireCompiled(file, `${file}.cache`);
    expect(again.cacheRejected).toBe(false);
    expect((again.exports as { double: (n: number) => number }).double(5)).toBe(10);
  });

  // V8 itself takes a cache of another source of the same length, and runs that source's code.
  it("refuses a cache of another source of the same length, and runs this file's code", () => {
    const file = commonJsFile('exports.answer = () => 41;');
    const other = commonJsFile('exports.answer = () => 42;');
    writeFileSync(`${file}.cache`, requireCompiled(other, `${other}.none`).createCache());
    const mismatched = requireCompiled(file, `${file}.cache`);
    expect(mismatched.cacheRejected).toBe(true);
    expect((mismatched.exports as { answer: () => number }).answer()).toBe(41);
  });

  it('refuses damaged cache bytes, and runs the file all the same', () => {
    const file = commonJsFile();
    const cache = requireCompiled(file, `${file}.none`).createCache();
    cache[cache.length - 5]! ^= 0xff;
    writeFileSync(`${file}.cache`, cache);
    const damaged = requireCompiled(file, `${file}.cache`);
    expect(damaged.cacheRejected).toBe(true);
    expect((damaged.exports as { double: (n: number) => number }).double(4)).toBe(8);

    writeFileSync(`${file}.cache`, Buffer.from('not a code cache'));
    expect(requireCompiled(file, `${file}.cache`).cacheRejected).toBe(true);
  });
});
