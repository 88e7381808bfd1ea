// Issue 46: `dbtattic export` at scale. SCALED, not real: bench/history-scale.mjs's history (a real
// manifest replicated to 10,000 nodes, 200 `dbt build` runs an hour apart, scaled-history.mjs).
// Runs 1..N-1 are captured in-process (setup, not measured) and ingested by one `dbtattic sync`;
// then measured, as a user runs them, whole processes: the first export of the whole history to
// an empty directory; run N captured (`dbtattic capture`, which ingests it), and the export that
// follows, which writes that run's files only. Reported: seconds, files, the dataset's bytes
// against the store's. Budgets: the incremental export of one run under 1 s; dataset ≤ store.
// Then Spark (bench/spark-history.mjs; skipped, saying why, without Java or its venv) answers
// the run-history questions over the dataset, and DuckDB's read_json over the runs' raw
// run_results.json answers the same as its peer (history-peers.mjs). Budget: Spark's answer,
// its session started, under 10 s.
//   node bench/export.mjs [--nodes 10000] [--runs 200]
//   BENCH_EXPORT_DIR=/tmp/e node bench/export.mjs     keep the history there; measure it again next time
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { openArchive } from '../dist/archive/index.js';
import { captureTarget } from '../dist/capture/index.js';
import { ARTIFACT_TYPES } from '../dist/vocab/index.js';
import { storeBytes, treeBytes } from './disk-bytes.mjs';
import { ScaledHistory } from './scaled-history.mjs';
import { measureRunHistory } from './spark-history.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(here, '..', 'bin', 'dbtattic.js');
const BUDGET = { incremental_s: 1, dataset_vs_store: 1, spark_answer_s: 10 };

const { values } = parseArgs({ options: { nodes: { type: 'string', default: '10000' }, runs: { type: 'string', default: '200' } } });
const nodes = Number(values.nodes);
const runs = Number(values.runs);

function attic(cwd, store, args) {
  const started = performance.now();
  const run = spawnSync(process.execPath, [BIN, '--store', store, ...args], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    env: { ...process.env, NO_COLOR: '1' },
  });
  const s = (performance.now() - started) / 1000;
  if (run.status !== 0) throw new Error(`dbtattic ${args.join(' ')} exited ${run.status ?? run.signal}: ${run.stderr}`);
  return { s, stdout: run.stdout };
}

/** Runs 1..runs-1 in the archive, captured in-process a run at a time, then ingested by one sync. */
async function buildHistory(history, project, store) {
  const target = path.join(project, 'target');
  const backend = await openArchive(path.join(store, 'archive'), { create: true });
  const t0 = performance.now();
  for (let r = 1; r < history.runs; r++) {
    history.writeRun(r, target);
    await captureTarget(backend, { targetDir: target, artifacts: ARTIFACT_TYPES, phase: 'post', toolVersion: 'bench', branch: 'main', now: new Date() });
    if (r % 20 === 0) process.stderr.write(`export bench: ${r} of ${history.runs - 1} runs captured (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`);
  }
  const sync = attic(project, store, ['sync']);
  process.stderr.write(`export bench: ingested in ${sync.s.toFixed(1)} s\n`);
}

const keep = process.env.BENCH_EXPORT_DIR;
const root = keep ?? mkdtempSync(path.join(os.tmpdir(), 'attic-bench-export-'));
const project = path.join(root, 'project');
const built = path.join(root, 'store-built');
const store = path.join(root, 'store');
const dataset = path.join(root, 'dataset');
const runsDir = path.join(root, 'runs');
// What a kept directory holds: runs 1..N-1 of nodes, in store-built/, measured on a copy (store/).
const marker = path.join(root, `built-${nodes}x${runs}`);
try {
  const history = new ScaledHistory(nodes, runs);
  if (!existsSync(marker)) {
    rmSync(root, { recursive: true, force: true });
    mkdirSync(path.join(project, 'target'), { recursive: true });
    writeFileSync(path.join(project, 'dbt_project.yml'), "name: hubspot_integration_tests\nversion: '1.0'\nprofile: bench\n");
    await buildHistory(history, project, built);
    writeFileSync(marker, '');
  } else {
    // The history writes run N from the state run N-1 left: replay the changes only.
    for (let r = 2; r < runs; r++) history.changeModels(r);
  }
  rmSync(store, { recursive: true, force: true });
  cpSync(built, store, { recursive: true });
  rmSync(dataset, { recursive: true, force: true });
  const first = attic(project, store, ['export', '--to', dataset, '--json']);
  const firstReport = JSON.parse(first.stdout);
  const datasetBytesBefore = treeBytes(dataset);

  history.writeRun(runs, path.join(project, 'target'));
  const capture = attic(project, store, ['capture', '--quiet']);
  const incremental = attic(project, store, ['export', '--to', dataset, '--json']);
  const incrementalReport = JSON.parse(incremental.stdout);
  const nothing = attic(project, store, ['export', '--to', dataset, '--json']);
  const datasetBytes = treeBytes(dataset);
  const bytesOfStore = storeBytes(store);

  const result = {
    name: 'export',
    data: 'SCALED: a real manifest replicated (bench/scaled-history.mjs)',
    nodes,
    runs,
    first_export: { s: +first.s.toFixed(2), files: firstReport.written, bytes: datasetBytesBefore },
    capture_of_last_run_s: +capture.s.toFixed(2),
    incremental_export: {
      s: +incremental.s.toFixed(2),
      files: incrementalReport.written,
      deleted: incrementalReport.deleted,
      budget_s: BUDGET.incremental_s,
      pass: incremental.s < BUDGET.incremental_s,
    },
    export_of_nothing_new_s: +nothing.s.toFixed(2),
    sizes: {
      dataset_bytes: datasetBytes,
      store_bytes: bytesOfStore,
      ratio: +(datasetBytes / bytesOfStore).toFixed(3),
      pass: datasetBytes <= bytesOfStore * BUDGET.dataset_vs_store,
    },
  };
  result.run_history = await measureRunHistory(history, dataset, runsDir, BUDGET.spark_answer_s);
  // Two cores, shared: the figures are read beside the load they were measured under.
  result.load_average = +os.loadavg()[0].toFixed(1);
  result.pass =
    result.incremental_export.pass &&
    result.sizes.pass &&
    incrementalReport.written > 0 &&
    JSON.parse(nothing.stdout).written === 0 &&
    result.run_history.pass !== false;
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  if (!result.pass) process.exitCode = 1;
} finally {
  if (!keep) rmSync(root, { recursive: true, force: true });
}
