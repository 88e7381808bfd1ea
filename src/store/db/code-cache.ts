import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

/**
 * A CommonJS file run the way `require` runs it, with V8's code cache for it (Node 20 has no
 * compile cache of its own: module.enableCompileCache came with Node 22). The cache is written
 * at build time (scripts/bundle-duckdb.mjs) after the file has run and opened a database, so it
 * holds the functions a reading command compiles too. V8 refuses a cache made by another V8 or
 * under other flags and compiles the source as usual. It does not see every mismatch, though:
 * it takes a cache made for another source of the same length (and runs the other source's
 * code), and damaged bytes. So the cache file starts with a SHA-256 of the source and the
 * cache together (half a millisecond for DuckDB's client), and a cache that does not match it is
 * never given to V8: the cache changes the time, never the result.
 */
export interface CompiledFile {
  exports: unknown;
  /** The cache file's bytes for what has been compiled so far. */
  createCache: () => Buffer;
  /** True when a cache file was there and was not used. */
  cacheRejected: boolean;
}

const DIGEST_BYTES = 32;

export function requireCompiled(file: string, cacheFile: string): CompiledFile {
  const source = Module.wrap(readFileSync(file, 'utf8'));
  const cache = readCache(cacheFile);
  const cachedData = cache && matches(source, cache) ? cache.subarray(DIGEST_BYTES) : undefined;
  const script = new vm.Script(source, { filename: file, cachedData });
  const module = { exports: {} as unknown };
  const run = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;
  run.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  return {
    exports: module.exports,
    createCache: () => {
      const data = script.createCachedData();
      return Buffer.concat([digest(source, data), data]);
    },
    cacheRejected: cache !== undefined && (cachedData === undefined || script.cachedDataRejected === true),
  };
}

function matches(source: string, cache: Buffer): boolean {
  return cache.length > DIGEST_BYTES && digest(source, cache.subarray(DIGEST_BYTES)).equals(cache.subarray(0, DIGEST_BYTES));
}

function digest(source: string, data: Uint8Array): Buffer {
  return createHash('sha256').update(source).update(data).digest();
}

function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}
