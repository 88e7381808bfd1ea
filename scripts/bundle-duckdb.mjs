// Writes dist/vendor/duckdb-node-api.cjs: @duckdb/node-api's CommonJS modules (about 190 files)
// in one file, which the built CLI loads instead of the package (src/store/duckdb.ts). Loading
// them one by one was the largest part of a reading command's start-up: resolving, reading and
// compiling each file. The native binding (@duckdb/node-bindings) stays the package's own.
// Then V8's code cache for that file (src/store/db/code-cache.ts), written after it has opened a
// database and read a result as a reading command does, so the functions that path compiles
// are in it too. Made by the Node that builds; another Node refuses it and compiles as usual.
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const require = createRequire(import.meta.url);
// The names src/store/duckdb.ts loads.
const file = fileURLToPath(new URL('../dist/vendor/duckdb-node-api.cjs', import.meta.url));
const cacheFile = `${file}.cache`;
// V8 matches a cache to its source by length alone: a cache is never left beside another build.
rmSync(cacheFile, { force: true });
await build({
  input: require.resolve('@duckdb/node-api'),
  platform: 'node',
  external: [/^@duckdb\/node-bindings/],
  logLevel: 'warn',
  output: { file, format: 'cjs', exports: 'named' },
});

const { requireCompiled } = await import('../dist/store/db/code-cache.js');
const compiled = requireCompiled(file, cacheFile);
const duckdb = compiled.exports;
const instance = await duckdb.DuckDBInstance.create(':memory:');
const connection = await instance.connect();
await connection.run('SET enable_external_access = false');
(await connection.runAndReadAll("SELECT 'warm' AS value, 1 AS n")).getRowObjectsJson();
const result = await connection.stream('SELECT 1 AS n');
result.columnNames();
result.columnTypes();
for await (const rows of result.yieldRowsJson()) void rows;
connection.closeSync();
instance.closeSync();
writeFileSync(cacheFile, compiled.createCache());
