// Issue 13: capture of compiled/run SQL in front of dbt. A synthetic project of BENCH_MODELS
// models (default 10,000; compiled/ and run/ per model): the bytes stored when a build changes
// 1 % of the SQL (goal: under 2 % of what dbt wrote), and the time of a capture that finds
// nothing new, without SQL capture (as before) and with it (goal: within 20 ms of it).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { FsBackend } from '../dist/archive/backends/fs.js';
import { captureTarget } from '../dist/capture/capture.js';
import { StatCache } from '../dist/capture/stat-cache.js';

const MODELS = Number(process.env.BENCH_MODELS ?? 10_000);

function writeBuild(target, invocationId, startedAt, variant) {
  let bytes = 0;
  for (let i = 0; i < MODELS; i++) {
    const sql = `-- synthetic model ${i}\nselect customer_id, count(*) as events, sum(amount_cents) / 100.0 as amount\nfrom "warehouse"."raw"."events_${i % 97}"\nwhere region = '${i % 100 === 7 ? variant : 'us'}' and event_type in ('order', 'refund', 'payment')\ngroup by customer_id\n`;
    for (const [kind, text] of [
      ['compiled', sql],
      ['run', `\n  create table "warehouse"."main"."model_${i}__dbt_tmp" as (\n    ${sql}\n  );\n`],
    ]) {
      const file = path.join(target, kind, 'scaled', 'models', `group_${i % 100}`, `model_${i}.sql`);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, text);
      bytes += Buffer.byteLength(text);
    }
  }
  const metadata = {
    dbt_schema_version: 'https://schemas.getdbt.com/dbt/run-results/v6.json',
    dbt_version: '1.9.4',
    generated_at: new Date().toISOString(),
    invocation_id: invocationId,
    invocation_started_at: startedAt.toISOString(),
  };
  writeFileSync(path.join(target, 'run_results.json'), JSON.stringify({ metadata, results: [], elapsed_time: 1, args: {} }));
  return bytes;
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-bench-outputs-'));
  const target = path.join(dir, 'target');
  const backend = new FsBackend(path.join(dir, 'archive'));
  const statCacheFile = path.join(dir, 'cache.json');
  const capture = async (withOutputs) => {
    const started = performance.now();
    const { record } = await captureTarget(backend, {
      targetDir: target,
      artifacts: ['run_results'],
      phase: 'manual',
      toolVersion: 'bench',
      branch: null,
      statCacheFile,
      ...(withOutputs ? { outputs: { sql: true, logs: true, logDir: path.join(dir, 'logs'), sqlCacheFile: path.join(dir, 'sql-cache.json') } } : {}),
    });
    return { ms: performance.now() - started, sql: record.outputs?.find((o) => o.output === 'sql') };
  };
  try {
    writeBuild(target, 'bench-1', new Date(Date.now() - 1000), 'us');
    const first = await capture(true);
    const second = new Date();
    await sleep(20);
    const written = writeBuild(target, 'bench-2', second, 'eu');
    const changed = await capture(true);
    const median = async (fn) => {
      const times = [];
      for (let i = 0; i < 7; i++) times.push(await fn());
      return times.sort((a, b) => a - b)[3];
    };
    const before = await median(async () => (await capture(false)).ms);
    const after = await median(async () => (await capture(true)).ms);
    // The memo lost (a new store, say): the SQL is listed and stat-checked, not read.
    const relisted = await median(async () => {
      const cache = await StatCache.load(statCacheFile);
      cache.setMemo('sql', undefined);
      await cache.save();
      return (await capture(true)).ms;
    });
    const ratio = changed.sql.stored_bytes / written;
    console.log(
      JSON.stringify(
        {
          models: MODELS,
          sql_files: changed.sql.entries,
          sql_bytes_written: written,
          first_capture_ms: Math.round(first.ms),
          one_percent_changed: { ms: Math.round(changed.ms), stored_bytes: changed.sql.stored_bytes, ratio: Number(ratio.toFixed(5)) },
          nothing_new_ms: {
            without_sql_capture: Number(before.toFixed(1)),
            with_sql_capture: Number(after.toFixed(1)),
            memo_lost: Number(relisted.toFixed(1)),
          },
          pass: ratio < 0.02 && after - before < 20,
        },
        null,
        2,
      ),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
