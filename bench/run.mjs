// `npm run bench`: every benchmark, one after another (they would fight over two cores), each
// in its own process so that memory figures are its own. Each prints its measurements; those
// with a goal print `"pass": true|false`. Exit status 1 when a goal is missed.
//   npm run bench                  all of them
//   npm run bench -- dedup large   those whose file name contains a word given
//   BENCH_HISTORY_RUNS=1000 npm run bench -- history-scale   the 1,000-run variant of history-scale
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const BENCHES = [
  'startup.mjs',
  'dbt-overhead.mjs',
  'capture-dedup.mjs',
  'capture-outputs.mjs',
  'store-contention.mjs',
  'ingest-history.mjs',
  'ingest-large.mjs',
  'sql-normalize.mjs',
  's3-remote.mjs',
  'plan-scale.mjs',
  'report-scale.mjs',
  'prune.mjs',
  'export.mjs',
  'history-scale.mjs',
];

const only = process.argv.slice(2);
const unknown = only.filter((word) => !BENCHES.some((f) => f.includes(word)));
if (unknown.length) {
  console.error(`no benchmark is named by: ${unknown.join(', ')}; the benchmarks: ${BENCHES.map((f) => f.replace('.mjs', '')).join(', ')}`);
  process.exit(2);
}
// Figures depend on the Node line (issue 17): every report starts with it.
process.stdout.write(`node ${process.version} on ${process.platform}-${process.arch}, ${os.availableParallelism()} cores\n`);
let missed = 0;
for (const file of BENCHES.filter((f) => only.length === 0 || only.some((word) => f.includes(word)))) {
  process.stdout.write(`\n== ${file}\n`);
  const run = spawnSync(process.execPath, [path.join(here, file)], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', maxBuffer: 1 << 24 });
  process.stdout.write(run.stdout);
  if (run.status !== 0 || /"pass":\s*false/.test(run.stdout)) missed++;
}
if (missed) {
  console.error(`\n${missed} benchmark(s) missed a goal or failed`);
  process.exitCode = 1;
}
