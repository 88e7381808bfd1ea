// Issue 10's budgets, against the S3 server of AWS_ENDPOINT_URL (Ceph RGW from
// ../shared/s3/rgw-up.sh), as ratios to the filesystem backend in the same run:
// - a capture with nothing new: at most 3 requests;
// - a capture of a 100 MB manifest: under 3x the filesystem time;
// - `state --last-success` on a fresh runner (empty cache) for that manifest: under 5 s.
// Each step runs the built CLI in its own process, as a CI runner would.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { writeScaledManifest } from './scaled-manifest.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(here, '..', 'bin', 'dbtattic.js');
const MB = 1_000_000;
const sizeMb = Number(process.env.BENCH_MANIFEST_MB ?? 100);
const INVOCATION = '5eb1c0de-0000-4000-8000-000000000001';

function attic(args, cwd, env) {
  const started = performance.now();
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (run.status !== 0) throw new Error(`dbtattic ${args.join(' ')} failed: ${run.stderr}`);
  return { ms: performance.now() - started, stdout: run.stdout, stderr: run.stderr };
}

async function makeProject() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-bench-s3-'));
  const target = path.join(dir, 'target');
  mkdirSync(target);
  writeFileSync(path.join(dir, 'dbt_project.yml'), "name: bench\nversion: '1.0'\nprofile: bench\n");
  await writeScaledManifest(path.join(target, 'manifest.json'), sizeMb * MB, { metadata: { invocation_id: INVOCATION, generated_at: '2026-01-01T00:00:00Z' } });
  const metadata = {
    dbt_schema_version: 'https://schemas.getdbt.com/dbt/run-results/v6.json',
    dbt_version: '1.9.4',
    generated_at: '2026-01-01T00:10:00Z',
    invocation_id: INVOCATION,
    env: {},
  };
  const results = [
    {
      status: 'success',
      unique_id: 'model.bench.m0',
      execution_time: 1,
      thread_id: 'Thread-1',
      timing: [],
      adapter_response: {},
      message: 'OK',
      failures: null,
    },
  ];
  writeFileSync(path.join(target, 'run_results.json'), JSON.stringify({ metadata, results, elapsed_time: 1, args: { which: 'build' } }));
  // Older than the stat cache's racy window, so the nothing-new capture is not re-read.
  const past = new Date(Date.now() - 60_000);
  for (const f of ['manifest.json', 'run_results.json']) utimesSync(path.join(target, f), past, past);
  return dir;
}

async function main() {
  if (!process.env.AWS_ENDPOINT_URL) {
    console.log(JSON.stringify({ skipped: 'no S3 endpoint: start ../shared/s3/rgw-up.sh and source its s3.env' }));
    return;
  }
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const bucket = `attic-bench-${Date.now().toString(16)}`;
  await new S3Client({ endpoint: process.env.AWS_ENDPOINT_URL, forcePathStyle: true }).send(new CreateBucketCommand({ Bucket: bucket }));
  const dir = await makeProject();
  const fs = attic(['capture', '--branch', 'main', '--quiet'], dir, { DBTATTIC_STORE: path.join(dir, 'fs-store') });
  const s3 = { DBTATTIC_STORE: `s3://${bucket}/bench`, XDG_CACHE_HOME: path.join(dir, 'cache') };
  const remote = attic(['capture', '--branch', 'main', '--quiet'], dir, s3);
  const unchanged = attic(['capture', '--quiet'], dir, { ...s3, DBTATTIC_S3_TRACE: '1' });
  const requests = unchanged.stderr.split('\n').filter((line) => line.startsWith('s3 ')).length;
  const fresh = attic(['state', '--last-success', '--branch', 'main'], makeRunner(), {
    ...s3,
    XDG_CACHE_HOME: mkdtempSync(path.join(os.tmpdir(), 'attic-bench-runner-')),
  });
  const fsState = attic(['state', '--last-success', '--branch', 'main', '--out', path.join(dir, 'fs-state')], dir, {
    DBTATTIC_STORE: path.join(dir, 'fs-store'),
  });
  const ratio = remote.ms / fs.ms;
  console.log(
    JSON.stringify(
      {
        manifest_mb: sizeMb,
        capture_fs_ms: Math.round(fs.ms),
        capture_s3_ms: Math.round(remote.ms),
        capture_ratio: Number(ratio.toFixed(2)),
        nothing_new_requests: requests,
        fresh_state_ms: Math.round(fresh.ms),
        state_fs_ms: Math.round(fsState.ms),
        // Context: every figure here is wall time on a shared machine.
        load_average: Number(os.loadavg()[0].toFixed(1)),
        pass: ratio < 3 && requests <= 3 && fresh.ms < 5000,
      },
      null,
      2,
    ),
  );
}

function makeRunner() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-bench-runner-'));
  writeFileSync(path.join(dir, 'dbt_project.yml'), "name: bench\nversion: '1.0'\nprofile: bench\n");
  return dir;
}

await main();
