import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { applyForget, evaluatePolicy, pruneArchive, EMPTY_POLICY } from '../../../src/retention/index.js';
import { openDatabase, rebuildStore, syncStore } from '../../../src/store/index.js';
import { file } from '../../helpers/archive-builder.js';
import { dumpStore, expectSameRows } from '../../helpers/store-dump.js';

/**
 * The store follows forget: three days of hourly builds on two branches, the first day's with
 * a third model (m2) that later manifests drop. Caught up before and after `forget --keep-last
 * 10 --keep-daily 1` and `prune`, the store holds exactly what a rebuild from the pruned archive
 * derives: no row of a forgotten invocation, and no version of m2, which only they held.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-forgotten-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the store after forget and prune', () => {
  it('equals a rebuild, and keeps no version only forgotten invocations held', async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 1\n'));
    const start = Date.UTC(2025, 2, 1, 0, 15);
    for (const branch of ['main', 'dev']) {
      for (let hour = 0; hour < 72; hour++) {
        const at = new Date(start + hour * 3_600_000).toISOString();
        await file(backend, {
          invocationId: `${branch}-${String(hour).padStart(3, '0')}-0000000`,
          target: branch === 'main' ? 'prod' : 'ci',
          statuses: hour < 24 ? ['success', 'success', 'success'] : ['success', 'success'],
          generatedAt: at,
          capturedAt: new Date(start + hour * 3_600_000 + (branch === 'main' ? 0 : 1)).toISOString(),
          branch,
        });
      }
    }
    const store = path.join(dir, 'store.duckdb');
    await syncStore(backend, store, 'wait');
    expect(await countOf(store, "SELECT count(*) FROM node_version WHERE unique_id = 'model.synthetic.m2'")).toBeGreaterThan(0);

    const plan = await evaluatePolicy(backend, { ...EMPTY_POLICY, last: 10, daily: 1 }, { now: new Date(start + 80 * 3_600_000) });
    expect(plan.keep).toHaveLength(2 * 10);
    await applyForget(backend, plan.forget, 'test', new Date());
    await pruneArchive(backend, { now: new Date(Date.now() + 1000), graceMs: 0, dryRun: false });
    await syncStore(backend, store, 'wait');

    const rebuilt = path.join(dir, 'rebuilt.duckdb');
    await rebuildStore(backend, rebuilt);
    expectSameRows(await dumpStore(store), await dumpStore(rebuilt));
    expect(await countOf(store, 'SELECT count(*) FROM invocation')).toBe(20);
    expect(await countOf(store, "SELECT count(*) FROM node_version WHERE unique_id = 'model.synthetic.m2'")).toBe(0);

    // m2 comes back in a new run: its versions are written again, once each (no primary key
    // keeps them unique: the version writer does, schema/001-tables.sql).
    const back = new Date(start + 90 * 3_600_000).toISOString();
    await file(backend, {
      invocationId: 'main-090-0000000',
      target: 'prod',
      statuses: ['success', 'success', 'success'],
      generatedAt: back,
      capturedAt: back,
      branch: 'main',
    });
    await syncStore(backend, store, 'wait');
    expect(await countOf(store, "SELECT count(*) FROM node_version WHERE unique_id = 'model.synthetic.m2'")).toBeGreaterThan(0);
    for (const [table, id] of [
      ['node_version', 'node_version_id'],
      ['compiled_code', 'compiled_code_id'],
      ['macro_version', 'macro_version_id'],
    ]) {
      expect(await countOf(store, `SELECT count(*) - count(DISTINCT ${id}) FROM ${table}`), table).toBe(0);
    }
  }, 300_000);
});

describe('the store after a forget killed halfway', () => {
  it('catches up when the capture records are gone and the artifact records not yet', async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 1\n'));
    for (let hour = 0; hour < 3; hour++) {
      const at = new Date(Date.UTC(2025, 2, 1, hour)).toISOString();
      await file(backend, { invocationId: `run-${hour}-000000000`, statuses: ['success', 'success'], generatedAt: at, capturedAt: at, branch: 'main' });
    }
    const store = path.join(dir, 'halfway.duckdb');
    await syncStore(backend, store, 'wait');
    const plan = await evaluatePolicy(backend, { ...EMPTY_POLICY, last: 1 }, { now: new Date(Date.UTC(2025, 2, 2)) });
    const invocationRecords = await Promise.all((await backend.list('records/invocations/')).map(async ({ key }) => [key, (await backend.get(key))!] as const));
    await applyForget(backend, plan.forget, 'test', new Date());
    // What a kill -9 leaves between forget's two stages: its record, the capture records gone.
    for (const [key, bytes] of invocationRecords) await backend.putIfAbsent(key, bytes);
    await syncStore(backend, store, 'wait');
    expect(await countOf(store, 'SELECT count(*) FROM invocation')).toBe(3);
  });
});

async function countOf(file: string, sql: string): Promise<number> {
  const db = await openDatabase(file, 'read');
  try {
    return Number((await db.connection.runAndReadAll(sql)).getRows()[0]![0]);
  } finally {
    db.close();
  }
}
