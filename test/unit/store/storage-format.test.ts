import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive } from '../../../src/archive/index.js';
import { captureTarget } from '../../../src/capture/index.js';
import { openDatabase, syncStore } from '../../../src/store/index.js';
import { COMPACT_MIN_BYTES, copyCompacted, isWasteful } from '../../../src/store/compact.js';
import { applySchema } from '../../../src/store/schema.js';
import { writeSyntheticTarget } from '../../helpers/synthetic-artifacts.js';

/**
 * The store is written in DuckDB's 1.5 storage format, whose string compression keeps it
 * smaller than the archive; DuckDB writes the 1.0 format unless asked. A store in the old
 * format, even one stamped with the current schema, is derived again into a new file.
 */
const duckdb: typeof import('@duckdb/node-api') = createRequire(import.meta.url)('@duckdb/node-api');
const INVOCATION = '11111111-1111-4111-8111-111111111111';
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

async function archiveWithOneRun(): Promise<{ root: string; backend: Awaited<ReturnType<typeof openArchive>> }> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-storage-'));
  roots.push(root);
  const backend = await openArchive(path.join(root, 'archive'), { create: true });
  const target = writeSyntheticTarget({ invocationId: INVOCATION, generatedAt: '2026-01-05T11:00:00Z' }, path.join(root, 'target'));
  await captureTarget(backend, { targetDir: target, artifacts: ['manifest', 'run_results'], phase: 'manual', toolVersion: 'test', branch: 'main', now: new Date('2026-01-05T12:00:00Z') });
  return { root, backend };
}

/** The storage version DuckDB reports for the file (`v1.0.0+`, `v1.5.0+`), read as DuckDB says it. */
async function storageVersionOf(file: string): Promise<{ version: string | undefined; invocations: string[] }> {
  const db = await openDatabase(file, 'read');
  try {
    const tags = (await db.connection.runAndReadAll('SELECT tags FROM duckdb_databases() WHERE database_name = current_database()')).getRowObjectsJson()[0]?.tags as { key: string; value: string }[];
    const invocations = (await db.connection.runAndReadAll('SELECT invocation_id FROM invocation')).getRows().map(([id]) => String(id));
    return { version: tags.find((t) => t.key === 'storage_version')?.value, invocations };
  } finally {
    db.close();
  }
}

describe('the store file format', () => {
  it('writes a new store in the 1.5 storage format', async () => {
    const { root, backend } = await archiveWithOneRun();
    const file = path.join(root, 'store.duckdb');
    const report = await syncStore(backend, file, 'wait');
    expect(report.status).toBe('synced');
    expect(await storageVersionOf(file)).toEqual({ version: 'v1.5.0+', invocations: [INVOCATION] });
  });

  it('derives a store written in the 1.0 format again, into the 1.5 format, with the current schema already stamped', async () => {
    const { root, backend } = await archiveWithOneRun();
    const file = path.join(root, 'store.duckdb');
    // As DuckDB writes a file when not asked for a format (and as earlier dbtattic did).
    const old = await duckdb.DuckDBInstance.create(file);
    const connection = await old.connect();
    await applySchema(connection);
    connection.closeSync();
    old.closeSync();
    expect((await storageVersionOf(file)).version).toBe('v1.0.0+');

    const report = await syncStore(backend, file, 'wait');
    expect(report.status).toBe('rebuilt');
    expect(await storageVersionOf(file)).toEqual({ version: 'v1.5.0+', invocations: [INVOCATION] });
  });

  it('compacts: the copy a rebuild swaps in holds only used blocks, every row, the results in node order, and its size', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-storage-'));
    roots.push(root);
    const db = await openDatabase(path.join(root, 'grown.duckdb'), 'write');
    const compacted = path.join(root, 'compacted.duckdb');
    try {
      await applySchema(db.connection);
      // Free blocks as ingest leaves them: data checkpointed, then most of it dropped; the
      // results invocation by invocation, as ingest appends them.
      await db.connection.run("INSERT INTO run_history (invocation_id, unique_id, defined_here, execution_time) SELECT 'inv-' || lpad((i // 9973)::VARCHAR, 4, '0'), 'node-' || (i % 9973), true, i FROM range(3000000) t(i)");
      await db.connection.run('CHECKPOINT');
      await db.connection.run('DELETE FROM run_history WHERE execution_time >= 30000');
      await db.connection.run('CREATE VIEW last_runs AS SELECT * FROM run_history WHERE execution_time > 29990');
      await db.connection.run('CHECKPOINT');
      const grown = (await db.connection.runAndReadAll('PRAGMA database_size')).getRowObjectsJson()[0]!;
      expect(Number(grown.free_blocks)).toBeGreaterThan(Number(grown.used_blocks));
      await copyCompacted(db.connection, compacted);
    } finally {
      db.close();
    }
    const copy = await openDatabase(compacted, 'read');
    try {
      const size = (await copy.connection.runAndReadAll('PRAGMA database_size')).getRowObjectsJson()[0]!;
      expect(size.free_blocks).toBe('0');
      const rows = (await copy.connection.runAndReadAll('SELECT count(*), sum(execution_time), count(DISTINCT unique_id), (SELECT count(*) FROM last_runs) FROM run_history')).getRows()[0]!.map(Number);
      expect(rows).toEqual([30000, (29999 * 30000) / 2, 9973, 9]);
      // In the order stored (rowid), not as asked: node by node, each node's runs in order.
      const stored = (await copy.connection.runAndReadAll('SELECT unique_id, invocation_id FROM run_history ORDER BY rowid')).getRows().map(([u, i]) => `${u} ${i}`);
      expect(stored).toEqual([...stored].sort());
      expect(stored[0]).toBe('node-0 inv-0000');
      expect(stored[1]).toBe('node-0 inv-0001');
      const stamped = (await copy.connection.runAndReadAll("SELECT value::BIGINT FROM store_meta WHERE key = 'compacted_bytes'")).getRows()[0]?.[0];
      // Measured before the last checkpoint, which adds store_meta and the catalog: a block or two.
      const used = Number(size.used_blocks) * Number(size.block_size);
      expect(Number(stamped)).toBeGreaterThan(0);
      expect(used - Number(stamped)).toBeLessThanOrEqual(2 * Number(size.block_size));
      expect(Number(stamped)).toBeLessThanOrEqual(used);
    } finally {
      copy.close();
    }
  });

  it('is copied compacted, in place, by a sync that ingests once a quarter of the file is free, and again once it has grown by a third', async () => {
    const { root, backend } = await archiveWithOneRun();
    const file = path.join(root, 'store.duckdb');
    expect(await syncStore(backend, file, 'wait')).not.toHaveProperty('compacted');
    // Free blocks past the threshold: incompressible rows checkpointed, then dropped (with a
    // table written after them, so that they are not at the end, where DuckDB cuts the file).
    const db = await openDatabase(file, 'write');
    try {
      await db.connection.run('CREATE TABLE ballast AS SELECT md5(i::VARCHAR) || md5((i + 1)::VARCHAR) AS x FROM range(1500000) t(i)');
      await db.connection.run('CHECKPOINT');
      await db.connection.run('CREATE TABLE after_ballast AS SELECT md5(i::VARCHAR) AS x FROM range(20000) t(i)');
      await db.connection.run('CHECKPOINT');
      await db.connection.run('DROP TABLE ballast');
    } finally {
      db.close();
    }
    const grown = statSync(file).size;
    expect(grown).toBeGreaterThan(COMPACT_MIN_BYTES);

    const second = '22222222-2222-4222-8222-222222222222';
    const target = writeSyntheticTarget({ invocationId: second, generatedAt: '2026-01-06T11:00:00Z' }, path.join(root, 'target-2'));
    await captureTarget(backend, { targetDir: target, artifacts: ['manifest', 'run_results'], phase: 'manual', toolVersion: 'test', branch: 'main', now: new Date('2026-01-06T12:00:00Z') });
    const report = await syncStore(backend, file, 'wait');

    expect(report).toMatchObject({ status: 'synced', invocations: 1, compacted: { fromBytes: grown } });
    const after = statSync(file).size;
    expect(after).toBeLessThan(grown / 4);
    expect(report).toMatchObject({ compacted: { toBytes: after } });
    expect((await storageVersionOf(file)).invocations.sort()).toEqual([INVOCATION, second]);
    // Nothing left beside it: neither the copy nor a WAL of the old file.
    expect(readdirSync(root).filter((name) => name.startsWith('store.duckdb'))).toEqual(['store.duckdb']);

    // Grown past a third, and past the size worth copying, with rows it keeps (so no free
    // blocks): copied again at the next ingest.
    const kept = await openDatabase(file, 'write');
    try {
      await kept.connection.run(`CREATE TABLE kept AS SELECT md5(i::VARCHAR) || md5((i + 1)::VARCHAR) AS x FROM range(2000000) t(i)`);
    } finally {
      kept.close();
    }
    const third = '33333333-3333-4333-8333-333333333333';
    const target3 = writeSyntheticTarget({ invocationId: third, generatedAt: '2026-01-07T11:00:00Z' }, path.join(root, 'target-3'));
    await captureTarget(backend, { targetDir: target3, artifacts: ['manifest', 'run_results'], phase: 'manual', toolVersion: 'test', branch: 'main', now: new Date('2026-01-07T12:00:00Z') });
    const grownAgain = statSync(file).size;
    expect(grownAgain).toBeGreaterThan(Math.max((4 / 3) * after, COMPACT_MIN_BYTES));
    const again = await syncStore(backend, file, 'wait');
    expect(again).toMatchObject({ status: 'synced', invocations: 1 });
    // The size when copied: the file as grown, and the run just ingested into it.
    expect((again as { compacted?: { fromBytes: number } }).compacted?.fromBytes).toBeGreaterThanOrEqual(grownAgain);
  });

  it('copies a store once a quarter of it is free, once it is 4/3 of its last compacted size, or when it was never compacted; never a small one', () => {
    const blockSize = 262_144;
    const blocks = COMPACT_MIN_BYTES / blockSize;
    const bytes = blocks * blockSize;
    const compactedAt = (share: number) => Math.floor(bytes / share);
    expect(isWasteful({ totalBlocks: blocks, freeBlocks: Math.ceil(blocks / 4), blockSize }, bytes)).toBe(true);
    expect(isWasteful({ totalBlocks: blocks, freeBlocks: Math.ceil(blocks / 4) - 1, blockSize }, bytes)).toBe(false);
    expect(isWasteful({ totalBlocks: blocks, freeBlocks: 0, blockSize }, compactedAt(4 / 3))).toBe(true);
    expect(isWasteful({ totalBlocks: blocks, freeBlocks: 0, blockSize }, compactedAt(4 / 3) + blockSize)).toBe(false);
    // The blocks freed by the first ingest after a copy are not growth: DuckDB reuses them.
    expect(isWasteful({ totalBlocks: blocks, freeBlocks: Math.ceil(blocks / 5), blockSize }, compactedAt(4 / 3))).toBe(false);
    expect(isWasteful({ totalBlocks: blocks, freeBlocks: 0, blockSize }, null)).toBe(true);
    expect(isWasteful({ totalBlocks: blocks - 1, freeBlocks: blocks - 1, blockSize }, null)).toBe(false);
  });
});
