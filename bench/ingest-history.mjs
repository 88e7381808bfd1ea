// Issue: "Ingest costs the invocation's own size, never the history's." Captures a history of
// 100 invocations one at a time and times the store sync that follows each capture (open,
// find the new records, ingest, close: what `dbtattic capture` pays). The invocations replay a
// real sequence from the corpus (or the synthetic fixture sequence without it), each under a new
// invocation id, an hour apart, with execution times varied by up to ±20%. Needs a build.
//   node bench/ingest-history.mjs [--invocations 100]
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openArchive } from '../dist/archive/index.js';
import { captureTarget } from '../dist/capture/capture.js';
import { openDatabase, syncStore } from '../dist/store/index.js';
import { generateSequence } from '../fixtures/generate.mjs';
import { CORPUS } from './scaled-manifest.mjs';

const SEQUENCE = 'rembo-dbt-prod/target-seq';
const FILES = ['manifest.json', 'run_results.json', 'sources.json', 'catalog.json'];
const START = Date.parse('2026-03-01T00:00:00Z');

/** The target/ directories to replay, oldest first, and what they are. */
function sourceSequence(scratch) {
  const corpusDir = path.join(CORPUS, SEQUENCE);
  if (existsSync(corpusDir)) {
    return {
      label: `corpus ${SEQUENCE} (real artifacts, ids and times rewritten)`,
      dirs: readdirSync(corpusDir)
        .sort()
        .map((d) => path.join(corpusDir, d)),
    };
  }
  const steps = generateSequence(path.join(scratch, 'fixture'));
  return { label: 'synthetic fixture sequence (fixtures/generate.mjs)', dirs: steps.map((s) => path.join(scratch, 'fixture', s.dir, 'target')) };
}

/** A deterministic factor in [0.8, 1.2] for invocation n and result i. */
function jitter(n, i) {
  const x = Math.sin(n * 12.9898 + i * 78.233) * 43758.5453;
  return 0.8 + 0.4 * (x - Math.floor(x));
}

/** Writes the artifacts of `from` into `to` as invocation number n. */
function writeInvocation(from, to, n) {
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to, { recursive: true });
  const id = `be4c0000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  const at = new Date(START + n * 3_600_000).toISOString();
  for (const file of FILES) {
    const source = path.join(from, file);
    if (!existsSync(source)) continue;
    const doc = JSON.parse(readFileSync(source, 'utf8'));
    doc.metadata = { ...doc.metadata, invocation_id: id, generated_at: at };
    if (Array.isArray(doc.results)) doc.results.forEach((r, i) => typeof r.execution_time === 'number' && (r.execution_time *= jitter(n, i)));
    writeFileSync(path.join(to, file), JSON.stringify(doc));
  }
  return at;
}

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

export async function benchIngestHistory(invocations = Number(process.env.BENCH_INVOCATIONS ?? 100)) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-bench-history-'));
  try {
    const source = sourceSequence(dir);
    const backend = await openArchive(path.join(dir, 'archive'), { create: true });
    const store = path.join(dir, 'store.duckdb');
    const target = path.join(dir, 'target');
    const syncMs = [];
    for (let n = 0; n < invocations; n++) {
      const at = writeInvocation(source.dirs[n % source.dirs.length], target, n);
      await captureTarget(backend, {
        targetDir: target,
        artifacts: ['manifest', 'run_results', 'sources', 'catalog'],
        phase: 'manual',
        toolVersion: 'bench',
        branch: 'main',
        now: new Date(Date.parse(at) + 60_000),
      });
      const started = performance.now();
      const report = await syncStore(backend, store, 'skip');
      syncMs.push(performance.now() - started);
      if (report.status !== 'synced' || report.invocations !== 1 || report.problems.length) throw new Error(`sync ${n}: ${JSON.stringify(report)}`);
    }
    const db = await openDatabase(store, 'read');
    const rows = (
      await db.connection.runAndReadAll(
        'SELECT (SELECT count(*) FROM node_invocation) AS node_rows, (SELECT count(*) FROM node_version) AS node_versions, (SELECT count(*) FROM macro_invocation) AS macro_rows, (SELECT count(*) FROM run_result) AS results',
      )
    ).getRowObjectsJson()[0];
    db.close();
    const at = (k) => Math.round(syncMs[Math.min(k, syncMs.length) - 1]);
    const ratio = mean(syncMs.slice(-10)) / mean(syncMs.slice(0, 10));
    return {
      name: 'ingest-history',
      history: `${invocations} invocations replaying ${source.dirs.length} target/ dirs of ${source.label}`,
      store_rows: Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, Number(v)])),
      sync_ms: {
        '1st': at(1),
        '10th': at(10),
        '50th': at(50),
        '100th': at(100),
        median: Math.round([...syncMs].sort((a, b) => a - b)[Math.floor(syncMs.length / 2)]),
      },
      first_10_mean_ms: Math.round(mean(syncMs.slice(0, 10))),
      last_10_mean_ms: Math.round(mean(syncMs.slice(-10))),
      ratio_last10_first10: Number(ratio.toFixed(2)),
      goal: 'ratio_last10_first10 < 1.5 (the cost of one ingest does not grow with the history)',
      pass: ratio < 1.5,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--invocations');
  console.log(JSON.stringify(await benchIngestHistory(at === -1 ? undefined : Number(process.argv[at + 1])), null, 2));
}
