import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { startWatched, type WatchedProcess } from './watched-process.js';

const DUCKDB_API = pathToFileURL(createRequire(import.meta.url).resolve('@duckdb/node-api')).href;

/**
 * Another process holding the store open for writing (DuckDB lets one process do that and
 * refuses every other): until it is killed, or for `forMs` after it says so.
 */
const HOLDER = `
const { DuckDBInstance } = await import(process.argv[1]);
const instance = await DuckDBInstance.create(process.argv[2]);
const connection = await instance.connect();
await connection.run('SELECT count(*) FROM invocation');
console.log('holding');
const forMs = Number(process.argv[3]);
if (forMs > 0) {
  await new Promise((resolve) => setTimeout(resolve, forMs));
  connection.closeSync();
  instance.closeSync();
} else {
  // The interval keeps the instance reachable: once collected, DuckDB would release the lock.
  setInterval(() => { void instance; void connection; }, 60_000);
}
`;

/** Resolves once the other process holds `file`. */
export async function holdStore(file: string, options: { forMs?: number } = {}): Promise<WatchedProcess> {
  const holder = startWatched(process.execPath, ['--input-type=module', '-e', HOLDER, DUCKDB_API, file, String(options.forMs ?? 0)]);
  await holder.waitForOutput('holding');
  return holder;
}
