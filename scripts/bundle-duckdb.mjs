// Writes dist/vendor/duckdb-node-api.cjs: @duckdb/node-api's CommonJS modules (about 190 files)
// in one file, which the built CLI loads instead of the package (src/store/duckdb.ts). Loading
// them one by one was the largest part of a reading command's start-up: resolving, reading and
// compiling each file. The native binding (@duckdb/node-bindings) stays the package's own.
import { createRequire } from 'node:module';
import { build } from 'rolldown';

const require = createRequire(import.meta.url);
await build({
  input: require.resolve('@duckdb/node-api'),
  platform: 'node',
  external: [/^@duckdb\/node-bindings/],
  logLevel: 'warn',
  output: { file: 'dist/vendor/duckdb-node-api.cjs', format: 'cjs', exports: 'named' },
});
