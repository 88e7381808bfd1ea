import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { captureTarget } from '../../../src/capture/index.js';

/**
 * A synthetic project of 10,000 models, as dbt leaves target/ after a full build: compiled/ and
 * run/ per model. A second build changes 1 % of the models' SQL (a var, say) and rewrites every
 * file, as dbt does; capturing it must store under 2 % of the bytes it wrote. The suite writes
 * 2,000 models (the tree's index, the one cost that grows with the project, is the same share of
 * it at any size); the slow lane (DBTATTIC_TEST_FULL=1, `npm run test:full`) the full 10,000.
 */
const MODELS = process.env.DBTATTIC_TEST_FULL === '1' ? 10_000 : 2_000;

function compiledSql(i: number, variant: string): string {
  return `-- synthetic model ${i}\nwith source_${i} as (\n    select * from "warehouse"."raw"."events_${i % 97}"\n),\n\nfiltered as (\n    select id, customer_id, event_type, amount_cents, created_at\n    from source_${i}\n    where event_type in ('order', 'refund', 'payment') and region = '${variant}'\n)\n\nselect customer_id, count(*) as events, sum(amount_cents) / 100.0 as amount\nfrom filtered\ngroup by customer_id\n`;
}

function writeBuild(target: string, invocationId: string, startedAt: Date, changed: (i: number) => boolean): number {
  let bytes = 0;
  for (let i = 0; i < MODELS; i++) {
    const rel = `models/group_${i % 100}/model_${i}.sql`;
    const sql = compiledSql(i, changed(i) ? 'eu' : 'us');
    const run = `\n  create table "warehouse"."main"."model_${i}__dbt_tmp" as (\n    ${sql}\n  );\n`;
    for (const [kind, text] of [
      ['compiled', sql],
      ['run', run],
    ] as const) {
      const file = path.join(target, kind, 'scaled', rel);
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
    env: { DBTATTIC_FIXTURE: 'synthetic' },
  };
  writeFileSync(path.join(target, 'run_results.json'), JSON.stringify({ metadata, results: [], elapsed_time: 1, args: {} }));
  return bytes;
}

describe(`SQL of a ${MODELS.toLocaleString('en')}-model project`, () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-scale-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a build changing 1 % of the SQL stores under 2 % of the bytes it wrote', async () => {
    const target = path.join(dir, 'target');
    const backend = new MemBackend();
    const capture = async () => {
      const { record } = await captureTarget(backend, {
        targetDir: target,
        artifacts: ['run_results'],
        phase: 'manual',
        toolVersion: 'test',
        branch: null,
        statCacheFile: path.join(dir, 'cache.json'),
        outputs: { sql: true, logs: false, logDir: null, sqlCacheFile: path.join(dir, 'sql-cache.json') },
      });
      return record!.outputs!.find((o) => o.output === 'sql')!;
    };
    const first = new Date(Date.now() - 1000);
    writeBuild(target, 'scaled-1', first, () => false);
    expect((await capture()).entries).toBe(2 * MODELS);

    const second = new Date();
    await sleep(20);
    const written = writeBuild(target, 'scaled-2', second, (i) => i % 100 === 7);
    const sql = await capture();
    expect(sql.entries).toBe(2 * MODELS);
    expect(sql.stored_bytes / written).toBeLessThan(0.02);
  }, 300_000);
});
