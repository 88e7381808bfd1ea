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

  it('compacts: the copy a rebuild swaps in holds only used blocks, and every row', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-storage-'));
    roots.push(root);
    const db = await openDatabase(path.join(root, 'grown.duckdb'), 'write');
    const compacted = path.join(root, 'compacted.duckdb');
    try {
      // Free blocks as ingest leaves them: data checkpointed, then most of it dropped.
      await db.connection.run("CREATE TABLE run_history AS SELECT i AS n, 'node-' || (i % 9973) AS unique_id FROM range(3000000) t(i)");
      await db.connection.run('CHECKPOINT');
      await db.connection.run('DELETE FROM run_history WHERE n >= 1000');
      await db.connection.run('CREATE VIEW last_runs AS SELECT * FROM run_history WHERE n > 990');
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
      const rows = (await copy.connection.runAndReadAll('SELECT count(*), sum(n), count(DISTINCT unique_id), (SELECT count(*) FROM last_runs) FROM run_history')).getRows()[0]!.map(Number);
      expect(rows).toEqual([1000, (999 * 1000) / 2, 1000, 9]);
    } finally {
      copy.close();
    }
  });

  it('is copied compacted, in place, by a sync that ingests once a quarter of the file is free', async () => {
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
  });

  it('leaves small stores and stores with less than a quarter free as they are', () => {
    const blockSize = 262_144;
    const blocks = COMPACT_MIN_BYTES / blockSize;
    expect(isWasteful({ totalBlocks: blocks, freeBlocks: Math.ceil(blocks / 4), blockSize })).toBe(true);
    expect(isWasteful({ totalBlocks: blocks, freeBlocks: Math.ceil(blocks / 4) - 1, blockSize })).toBe(false);
    expect(isWasteful({ totalBlocks: blocks - 1, freeBlocks: blocks - 1, blockSize })).toBe(false);
  });
});
