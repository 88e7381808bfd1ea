import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO_DIR } from '../helpers/cli.js';

/**
 * The build writes V8's code cache for DuckDB's bundled client (scripts/bundle-duckdb.mjs); the
 * Node that built it must take it, as the CLI does, or every reading command compiles the
 * client again. Asked of a plain Node process: the test runner's own module loading is not the CLI's.
 */
describe("the built DuckDB client's code cache", () => {
  it('is taken by the Node that built it, and the client it runs opens a database', () => {
    const codeCache = pathToFileURL(path.join(REPO_DIR, 'dist', 'store', 'db', 'code-cache.js')).href;
    const client = path.join(REPO_DIR, 'dist', 'vendor', 'duckdb-node-api.cjs');
    const script = `
      const { requireCompiled } = await import(${JSON.stringify(codeCache)});
      const loaded = requireCompiled(${JSON.stringify(client)}, ${JSON.stringify(`${client}.cache`)});
      const instance = await loaded.exports.DuckDBInstance.create(':memory:');
      const connection = await instance.connect();
      const rows = (await connection.runAndReadAll('SELECT 6 * 7 AS n')).getRowObjectsJson();
      connection.closeSync();
      instance.closeSync();
      console.log(JSON.stringify({ rejected: loaded.cacheRejected, rows }));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ rejected: false, rows: [{ n: 42 }] });
  });
});
