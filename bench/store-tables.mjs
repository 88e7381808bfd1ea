// Bytes of each table of a store, and CPU-bound timings of the views that read node rows.
// Each table is copied into a database file of its own (the store's storage format), so its
// size is what it costs on disk, compression included; the views are timed on one thread, the
// median of five runs, their result counted so that all of it is computed.
//   node bench/store-tables.mjs /path/to/store.duckdb [--json]
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { DuckDBInstance } from '@duckdb/node-api';

const [file, ...flags] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/store-tables.mjs STORE.duckdb [--json]');

/** Questions over node_invocation and node_depends_on, beside the views that read them. */
const QUESTIONS = {
  node_invocation: 'SELECT count(*) FROM node_invocation',
  node_depends_on: 'SELECT count(*) FROM node_depends_on',
  'node_invocation of one invocation': 'SELECT count(*) FROM node_invocation WHERE invocation_id = (SELECT max(invocation_id) FROM invocation)',
  'node_depends_on of one invocation': 'SELECT count(*) FROM node_depends_on WHERE invocation_id = (SELECT max(invocation_id) FROM invocation)',
  node: 'SELECT count(*) FROM node',
  v_latest_edges: 'SELECT count(*) FROM v_latest_edges',
  v_node_runtime: 'SELECT count(*) FROM v_node_runtime',
  v_test_history: 'SELECT count(*) FROM v_test_history',
  v_run_history: 'SELECT count(*) FROM v_run_history',
  v_runtime_regressions: 'SELECT count(*) FROM v_runtime_regressions',
  v_invocation_sequence: 'SELECT count(*) FROM v_invocation_sequence',
};

// In memory, the store attached read-only: the per-table copies are written beside it.
const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
const connection = await instance.connect();
await connection.run(`ATTACH '${file}' AS store (READ_ONLY)`);
await connection.run('USE store');
const rows = async (sql) => (await connection.runAndReadAll(sql)).getRowObjectsJson();
const dir = mkdtempSync(path.join(os.tmpdir(), 'store-tables-'));
const tables = await rows("SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' ORDER BY table_name");
const sizes = {};
for (const { table_name: table } of tables) {
  const target = path.join(dir, `${table}.duckdb`);
  await connection.run(`ATTACH '${target}' AS one (STORAGE_VERSION 'v1.5.0')`);
  await connection.run(`CREATE TABLE one."${table}" AS SELECT * FROM "${table}"`);
  await connection.run('DETACH one');
  const [{ n }] = await rows(`SELECT count(*)::BIGINT AS n FROM "${table}"`);
  sizes[table] = { rows: Number(n), bytes: statSync(target).size };
}
rmSync(dir, { recursive: true, force: true });

const timings = {};
for (const [question, sql] of Object.entries(QUESTIONS)) {
  if ((await rows(`SELECT count(*) AS n FROM duckdb_views() WHERE view_name = '${question.split(' ')[0]}'`))[0].n === 0) continue;
  const ms = [];
  let count;
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    count = Object.values((await rows(sql))[0])[0];
    ms.push(performance.now() - started);
  }
  timings[question] = { ms: Math.round(ms.sort((a, b) => a - b)[2]), count: Number(count) };
}
const result = { file, file_bytes: statSync(file).size, sizes, timings };
if (flags.includes('--json')) console.log(JSON.stringify(result, null, 2));
else {
  const mb = (b) => `${(b / 1e6).toFixed(2)} MB`;
  console.log(`${file}: ${mb(result.file_bytes)}`);
  for (const [table, s] of Object.entries(sizes)) console.log(`  ${table.padEnd(24)} ${String(s.rows).padStart(9)} rows  ${mb(s.bytes).padStart(10)}`);
  for (const [question, t] of Object.entries(timings)) console.log(`  ${question.padEnd(36)} ${String(t.ms).padStart(6)} ms  (${t.count})`);
}
