import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { requireCompiled } from './db/code-cache.js';

/**
 * @duckdb/node-api is CommonJS. Imported from ESM, Node first runs its export lexer over the
 * package's index and every module it re-exports to find named exports: about 80 ms of a
 * reading command's start-up, spent before any work. Required, it costs only its loading, and
 * loading is mostly finding, reading and compiling its ~190 files one by one; the build
 * (scripts/bundle-duckdb.mjs) writes them as one file beside the compiled code, which the CLI
 * loads instead, with V8's code cache for it (db/code-cache.ts: compiling it was another 14 ms of
 * CPU). Run from source (the tests), the package is loaded as it is.
 */
const require = createRequire(import.meta.url);
const BUNDLED_DUCKDB = fileURLToPath(new URL('../vendor/duckdb-node-api.cjs', import.meta.url));
const BUNDLED_DUCKDB_CACHE = `${BUNDLED_DUCKDB}.cache`;

export const duckdb: typeof import('@duckdb/node-api') = existsSync(BUNDLED_DUCKDB)
  ? (requireCompiled(BUNDLED_DUCKDB, BUNDLED_DUCKDB_CACHE).exports as typeof import('@duckdb/node-api'))
  : require('@duckdb/node-api');
