// Processes for the prune concurrency tests (test/e2e/prune-concurrency.test.ts), on the built
// code in dist/. Each round the pruner files an invocation whose manifest is new content, then
// forgets it and prunes with no grace period, while capturers file manifests that share all but
// their first chunk with it: a capture that finds those chunks present and skips writing them
// races the prune that sees them unreferenced. Prints one JSON line per capture or prune.
//   node prune-race.mjs capture STORE WORKDIR COUNT TAG
//   node prune-race.mjs prune STORE WORKDIR ROUNDS
import { mkdirSync, readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openArchive, putArtifactRecord, putBlob } from '../../dist/archive/index.js';
import { captureTarget } from '../../dist/capture/index.js';
import { applyForget, pruneArchive } from '../../dist/retention/index.js';

const [mode, store, workdir, countText, tag] = process.argv.slice(2);
const remote = store.startsWith('s3://') ? { s3: undefined, cacheDir: mkdtempSync(path.join(os.tmpdir(), 'race-cache-')), env: process.env } : null;
// Where `--store STORE` keeps its archive (config/resolve.ts).
const backend = await openArchive(remote ? `${store}/archive` : path.join(store, 'archive'), { create: true, remote });
const roundFile = path.join(workdir, 'round');
const SCHEMA = 'https://schemas.getdbt.com/dbt';

function metadata(kind, version, id, at) {
  return { dbt_schema_version: `${SCHEMA}/${kind}/${version}.json`, dbt_version: '1.9.4', generated_at: at, invocation_id: id, env: {} };
}

/** ~300 KB: several chunks, all but the first the same for every manifest of one round. */
function manifest(id, round, at) {
  const nodes = {};
  for (let i = 0; i < 1500; i++) {
    const uid = `model.race.m${i}`;
    nodes[uid] = { unique_id: uid, resource_type: 'model', name: `m${i}`, raw_code: `select ${i} as id, 'round ${round} ${'x'.repeat(80)}' as pad`, depends_on: { nodes: [] }, config: { materialized: 'view' } };
  }
  return JSON.stringify({ metadata: { ...metadata('manifest', 'v12', id, at), adapter_type: 'duckdb' }, nodes, sources: {}, macros: {}, docs: {}, exposures: {}, metrics: {}, disabled: {} }, null, 2);
}

function runResults(id, at) {
  const results = [{ status: 'success', unique_id: 'model.race.m0', execution_time: 0.01, thread_id: 'Thread-1', timing: [], adapter_response: {}, message: 'OK', failures: null }];
  return JSON.stringify({ metadata: metadata('run-results', 'v6', id, at), results, elapsed_time: 0.1, args: { which: 'build' } }, null, 2);
}

function currentRound() {
  try {
    return Number(readFileSync(roundFile, 'utf8'));
  } catch {
    return 0;
  }
}

async function capture() {
  const target = path.join(workdir, `target-${tag}`);
  mkdirSync(target, { recursive: true });
  for (let i = 0; i < Number(countText); i++) {
    const id = `cap-${tag}-${i}`;
    const at = new Date().toISOString();
    writeFileSync(path.join(target, 'manifest.json'), manifest(id, currentRound(), at));
    writeFileSync(path.join(target, 'run_results.json'), runResults(id, at));
    const { record } = await captureTarget(backend, { targetDir: target, artifacts: ['manifest', 'run_results'], phase: 'manual', toolVersion: 'race', branch: null });
    const manifestEntry = record.artifacts.find((a) => a.artifact === 'manifest');
    process.stdout.write(`${JSON.stringify({ capture: id, status: manifestEntry.status, size: manifestEntry.size, stored: manifestEntry.stored_bytes })}\n`);
  }
}

async function prune() {
  for (let round = 1; round <= Number(countText); round++) {
    const id = `old-${round}`;
    const at = new Date().toISOString();
    const bytes = Buffer.from(manifest(id, round, at));
    const put = await putBlob(backend, bytes);
    const now = new Date();
    await putArtifactRecord(backend, {
      kind: 'artifact', format: 1, invocation_id: id, invocation_id_source: 'metadata', artifact: 'manifest', sha256: put.id, size: bytes.length,
      dbt_schema_version: null, dbt_version: '1.9.4', generated_at: at, captured_at: now.toISOString(), capture_id: `${now.getTime().toString(16).padStart(13, '0')}-000000000000`, phase: 'manual',
    });
    writeFileSync(roundFile, String(round));
    // Let the capturers find this round's chunks before they become garbage.
    await new Promise((resolve) => setTimeout(resolve, 50 + Math.floor(Math.random() * 250)));
    await applyForget(backend, [id], 'race', new Date());
    const report = await pruneArchive(backend, { now: new Date(), graceMs: 0, dryRun: false });
    process.stdout.write(`${JSON.stringify({ prune: round, ...report })}\n`);
  }
}

await (mode === 'capture' ? capture() : prune());
