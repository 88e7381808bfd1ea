// Issue: "Re-capturing a large manifest in which only invocation_id, generated_at and one node
// changed stores under 2% of its size." Also times capture of a new and of an unchanged target/.
import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { FsBackend } from '../dist/archive/backends/fs.js';
import { captureTarget } from '../dist/capture/capture.js';
import { seedManifest, writeScaledManifest } from './scaled-manifest.mjs';

const MB = 1_000_000;
const sizeMb = Number(process.env.BENCH_MANIFEST_MB ?? 100);

export async function benchCaptureDedup() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-bench-'));
  const target = path.join(dir, 'target');
  mkdirSync(target);
  const manifest = path.join(target, 'manifest.json');
  const backend = new FsBackend(path.join(dir, 'archive'));
  const capture = async (statCacheFile) => {
    const started = performance.now();
    const { record } = await captureTarget(backend, {
      targetDir: target,
      artifacts: ['manifest'],
      phase: 'manual',
      toolVersion: 'bench',
      branch: null,
      statCacheFile,
    });
    const entry = record.artifacts[0];
    return { ms: performance.now() - started, status: entry.status, stored: entry.stored_bytes };
  };
  try {
    const shape = await writeScaledManifest(manifest, sizeMb * MB, { metadata: { invocation_id: 'bench-0000-first', generated_at: '2026-01-01T00:00:00Z' } });
    const size = statSync(manifest).size;
    const first = await capture();
    const unchanged = await capture();
    // With the stat cache, as `dbtattic capture` runs: a settled file (mtime an hour ago) is
    // hashed once, then vouched for by its identity.
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(manifest, hourAgo, hourAgo);
    await capture(path.join(dir, 'cache.json'));
    const cached = await capture(path.join(dir, 'cache.json'));
    let tweaked = 0;
    await writeScaledManifest(manifest, sizeMb * MB, {
      metadata: { invocation_id: 'bench-0001-second', generated_at: '2026-01-02T00:00:00Z' },
      tweak: (copy, node) => (copy === 1 && node.unique_id.endsWith('_x1') && !tweaked++ ? { ...node, raw_code: `${node.raw_code ?? ''}\n-- changed` } : node),
    });
    const changed = await capture();
    const pct = (changed.stored / size) * 100;
    return {
      name: 'capture-dedup',
      seed: seedManifest().label,
      manifest_bytes: size,
      nodes: shape.nodes,
      first_capture: { ms: Math.round(first.ms), stored_bytes: first.stored },
      unchanged_capture: { ms: Math.round(unchanged.ms), status: unchanged.status, stored_bytes: unchanged.stored },
      unchanged_capture_stat_cache: { ms: Math.round(cached.ms), status: cached.status, stored_bytes: cached.stored },
      one_node_changed: { ms: Math.round(changed.ms), stored_bytes: changed.stored, percent_of_size: Number(pct.toFixed(3)) },
      goal: 'one_node_changed.percent_of_size < 2 and unchanged stored_bytes == 0',
      pass: pct < 2 && unchanged.stored === 0 && unchanged.status === 'unchanged',
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchCaptureDedup(), null, 2));
}
