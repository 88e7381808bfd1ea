// Issue 15: "prune of an archive with 10,000 invocations finishes in under a minute on the
// filesystem, and the archive shrinks by what `forget --dry-run` predicted."
// 10,000 hourly builds on two branches (about 14 months), each a manifest that shares most of
// its chunks with its neighbours (a few nodes change a day) and its own run_results. Filing is
// setup, not measured. Measured: forget --dry-run's prediction, forget, prune (no grace period),
// and the archive's bytes on disk before and after, counted by walking the directory.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { FsBackend } from '../dist/archive/backends/fs.js';
import { putArtifactRecord, putBlob, putCaptureRecord } from '../dist/archive/index.js';
import { applyForget, evaluatePolicy, predictShrink, pruneArchive, EMPTY_POLICY } from '../dist/retention/index.js';
import { forEachLimited } from '../dist/vocab/index.js';

const INVOCATIONS = Number(process.env.BENCH_PRUNE_INVOCATIONS ?? 10_000);
const GOAL_MS = 60_000;
const POLICY = { ...EMPTY_POLICY, last: 10, daily: 7, monthly: 12 };
const START = Date.UTC(2025, 0, 1, 0, 30);

function manifest(id, at, day) {
  const nodes = {};
  for (let i = 0; i < 800; i++) {
    const uid = `model.bench.m${i}`;
    // a few nodes change each day; the rest are the same bytes every run (shared chunks)
    const version = i < 5 ? day : Math.floor(day / 30);
    nodes[uid] = {
      unique_id: uid,
      resource_type: 'model',
      name: `m${i}`,
      raw_code: `select ${i} as id, ${version} as v -- ${'x'.repeat(60)}`,
      depends_on: { nodes: [] },
      config: { materialized: 'view' },
    };
  }
  const metadata = {
    dbt_schema_version: 'https://schemas.getdbt.com/dbt/manifest/v12.json',
    dbt_version: '1.9.4',
    generated_at: at,
    invocation_id: id,
    env: {},
    adapter_type: 'duckdb',
  };
  return JSON.stringify({ metadata, nodes, sources: {}, macros: {}, docs: {}, exposures: {}, metrics: {}, disabled: {} }, null, 2);
}

function runResults(id, at, target) {
  const metadata = {
    dbt_schema_version: 'https://schemas.getdbt.com/dbt/run-results/v6.json',
    dbt_version: '1.9.4',
    generated_at: at,
    invocation_id: id,
    env: {},
  };
  const results = [
    {
      status: 'success',
      unique_id: 'model.bench.m0',
      execution_time: 0.01,
      thread_id: 'Thread-1',
      timing: [],
      adapter_response: {},
      message: 'OK',
      failures: null,
    },
  ];
  return JSON.stringify({ metadata, results, elapsed_time: 0.1, args: { which: 'build', target } }, null, 2);
}

async function fileInvocation(backend, n) {
  const branch = n % 2 === 0 ? 'main' : 'dev';
  const hour = Math.floor(n / 2);
  const at = new Date(START + hour * 3_600_000).toISOString();
  const id = `bench-${String(n).padStart(6, '0')}-${branch}`;
  const captureId = `${(START + n).toString(16).padStart(13, '0')}-${String(n).padStart(12, '0')}`;
  const entries = [];
  for (const [artifact, text] of [
    ['manifest', manifest(id, at, Math.floor(hour / 24))],
    ['run_results', runResults(id, at, branch === 'main' ? 'prod' : 'ci')],
  ]) {
    const bytes = Buffer.from(text);
    const put = await putBlob(backend, bytes);
    await putArtifactRecord(backend, {
      kind: 'artifact',
      format: 1,
      invocation_id: id,
      invocation_id_source: 'metadata',
      artifact,
      sha256: put.id,
      size: bytes.length,
      dbt_schema_version: null,
      dbt_version: '1.9.4',
      generated_at: at,
      captured_at: at,
      capture_id: captureId,
      phase: 'post',
    });
    entries.push({
      artifact,
      status: 'captured',
      path: `target/${artifact}.json`,
      invocation_id: id,
      sha256: put.id,
      size: bytes.length,
      stored_bytes: put.storedBytes,
    });
  }
  await putCaptureRecord(backend, {
    kind: 'capture',
    format: 1,
    capture_id: captureId,
    phase: 'post',
    captured_at: at,
    tool_version: 'bench',
    branch,
    context: {},
    run: null,
    artifacts: entries,
  });
}

function bytesUnder(root) {
  let total = 0;
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const full = path.join(root, entry.name);
    total += entry.isDirectory() ? bytesUnder(full) : statSync(full).size;
  }
  return total;
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-bench-prune-'));
try {
  const archive = path.join(dir, 'archive');
  const backend = new FsBackend(archive);
  await backend.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 1\n'));
  const setup = performance.now();
  // main's invocations in order (a branch's chunks are written by its first run), dev's beside them
  await forEachLimited(
    Array.from({ length: INVOCATIONS }, (_, n) => n),
    8,
    (n) => fileInvocation(backend, n),
  );
  const setupMs = performance.now() - setup;

  const now = new Date();
  const t0 = performance.now();
  const plan = await evaluatePolicy(backend, POLICY, { now });
  const predicted = await predictShrink(backend, plan.forget);
  const dryRunMs = performance.now() - t0;

  const before = bytesUnder(archive);
  const t1 = performance.now();
  const { forgetId } = await applyForget(backend, plan.forget, 'bench', now);
  const forgetMs = performance.now() - t1;
  const forgetRecordBytes =
    bytesUnder(path.join(archive, 'records', 'forgotten')) + statSync(path.join(archive, 'records', 'journal', `${forgetId}.json`)).size;
  const t2 = performance.now();
  const report = await pruneArchive(backend, { now: new Date(), graceMs: 0, dryRun: false });
  const pruneMs = performance.now() - t2;
  const after = bytesUnder(archive);
  // forget writes two small records of its own (forget record, journal entry): not part of what it frees
  const shrink = before - after + forgetRecordBytes;
  const result = {
    name: 'prune',
    invocations: INVOCATIONS,
    kept: plan.keep.length,
    forgotten: plan.forget.length,
    setup_ms: Math.round(setupMs),
    dry_run_ms: Math.round(dryRunMs),
    forget_ms: Math.round(forgetMs),
    prune_ms: Math.round(pruneMs),
    deleted: { files: report.files, chunks: report.chunks, bytes: report.bytes },
    archive_bytes: { before, after },
    predicted_shrink_bytes: predicted.bytes,
    measured_shrink_bytes: shrink,
    goal: `prune under ${GOAL_MS / 1000} s and shrink equal to the dry run's prediction`,
    pass: pruneMs < GOAL_MS && shrink === predicted.bytes,
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
