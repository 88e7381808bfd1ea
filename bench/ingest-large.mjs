// Issue: "A 500 MB manifest is captured and ingested in under 1.5 GB of memory." Builds a
// manifest of about 500 MB by copying the nodes of a real one from the corpus under new
// unique_ids (the copies are ours, not dbt's; see scaled-manifest.mjs), then, in a child process
// so that only dbtattic's memory is measured, captures it into a new archive and syncs the
// store, as `dbtattic capture` does. Peak RSS is read per phase from /proc (VmHWM, reset between
// phases) and for the whole child from getrusage. Needs a build and the corpus.
//   node bench/ingest-large.mjs [--mb 500]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { seedManifest, writeScaledManifest } from './scaled-manifest.mjs';

const MB = 1024 * 1024;
const GOAL_MB = 1536;

/** The peak RSS since the last reset, in MB; null where /proc cannot say. */
function peakSinceReset() {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
  return kb ? Math.round(Number(kb) / 1024) : null;
}

function resetPeak() {
  if (existsSync('/proc/self/clear_refs')) writeFileSync('/proc/self/clear_refs', '5');
}

async function child(dir) {
  const { openArchive } = await import('../dist/archive/index.js');
  const { captureTarget } = await import('../dist/capture/capture.js');
  const { syncStore } = await import('../dist/store/index.js');
  const phases = {};
  const phase = async (name, work) => {
    resetPeak();
    const started = process.hrtime.bigint();
    const result = await work();
    phases[name] = { seconds: Number((Number(process.hrtime.bigint() - started) / 1e9).toFixed(1)), peak_rss_mb: peakSinceReset() };
    return result;
  };
  const backend = await openArchive(path.join(dir, 'archive'), { create: true });
  await phase('capture', () =>
    captureTarget(backend, { targetDir: path.join(dir, 'target'), artifacts: ['manifest'], phase: 'manual', toolVersion: 'bench', branch: null }),
  );
  const report = await phase('sync', () => syncStore(backend, path.join(dir, 'store.duckdb'), 'wait'));
  if (report.status !== 'synced' || report.problems.length) throw new Error(`sync: ${JSON.stringify(report)}`);
  const peak = Math.round(process.resourceUsage().maxRSS / 1024);
  process.stdout.write(`${JSON.stringify({ phases, peak_rss_mb: peak, store_mb: Math.round(statSync(path.join(dir, 'store.duckdb')).size / MB) })}\n`);
}

export async function benchIngestLarge(targetMb = Number(process.env.BENCH_MANIFEST_MB ?? 500)) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-bench-large-'));
  try {
    mkdirSync(path.join(dir, 'target'));
    const manifest = path.join(dir, 'target', 'manifest.json');
    const shape = await writeScaledManifest(manifest, targetMb * MB, { metadata: { invocation_id: 'bench-large-0001', generated_at: '2026-01-01T00:00:00Z' } });
    const run = spawnSync(
      process.execPath,
      [...(process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(' ') : []), fileURLToPath(import.meta.url), '--child', dir],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    );
    if (run.status !== 0) throw new Error(`the child failed (${run.status ?? run.signal}):\n${run.stderr}`);
    const measured = JSON.parse(run.stdout);
    return {
      name: 'ingest-large',
      seed: seedManifest().label,
      manifest_mb: Math.round(statSync(manifest).size / MB),
      nodes: shape.nodes,
      ...measured,
      goal: `peak_rss_mb < ${GOAL_MB} for capture and ingest in one process`,
      pass: measured.peak_rss_mb < GOAL_MB,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const at = process.argv.indexOf('--child');
if (at !== -1) {
  await child(process.argv[at + 1]);
} else if (import.meta.url === `file://${process.argv[1]}`) {
  const mb = process.argv.indexOf('--mb');
  console.log(JSON.stringify(await benchIngestLarge(mb === -1 ? undefined : Number(process.argv[mb + 1])), null, 2));
}
