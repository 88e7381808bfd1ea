import { createRequire } from 'node:module';

/**
 * @duckdb/node-api is CommonJS. Imported from ESM, Node first runs its export lexer over the
 * package's index and every module it re-exports (39 files) to find named exports: about 80 ms
 * of a reading command's start-up, spent before any work. Required, it costs only its loading.
 */
export const duckdb: typeof import('@duckdb/node-api') = createRequire(import.meta.url)('@duckdb/node-api');
