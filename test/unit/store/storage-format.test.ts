import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive } from '../../../src/archive/index.js';
import { captureTarget } from '../../../src/capture/index.js';
import { claimCompaction, compactionRunning, compactStore, openDatabase, syncStore } from '../../../src/store/index.js';
import { COMPACT_MIN_BYTES, copyCompacted, isWasteful } from '../../../src/store/sync/compact.js';
import { applySchema } from '../../../src/store/schema.js';
import { writeSyntheticTarget } from '../../helpers/synthetic-artifacts.js';
import { addFreeBlocks } from '../../helpers/store-waste.js';

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
  await captureTarget(backend, {
    targetDir: target,
    artifacts: ['manifest', 'run_results'],
    phase: 'manual',
    toolVersion: 'test',
    branch: 'main',
    now: new Date('2026-01-05T12:00:00Z'),
  });
  return { root, backend };
}

async function captureRun(root: string, backend: Awaited<ReturnType<typeof openArchive>>, invocationId: string, day: string): Promise<void> {
  const target = writeSyntheticTarget({ invocationId, generatedAt: `${day}T11:00:00Z` }, path.join(root, `target-${invocationId}`));
  await captureTarget(backend, {
    targetDir: target,
    artifacts: ['manifest', 'run_results'],
    phase: 'manual',
    toolVersion: 'test',
    branch: 'main',
    now: new Date(`${day}T12:00:00Z`),
  });
}

async function metaValue(file: string, key: string): Promise<string | undefined> {
  const db = await openDatabase(file, 'read');
  try {
    const row = (await db.connection.runAndReadAll('SELECT value FROM store_meta WHERE key = $1', [key])).getRows()[0];
    return row ? String(row[0]) : undefined;
  } finally {
    db.close();
  }
}

/** Another process that opens the store read-only, says so, and reads once it is told to on stdin. */
function readInChildProcess(file: string): { started: Promise<void>; done: Promise<string> } {
  const script = `
    const duckdb = require(${JSON.stringify(createRequire(import.meta.url).resolve('@duckdb/node-api'))});
    (async () => {
      const instance = await duckdb.DuckDBInstance.create(${JSON.stringify(file)}, { access_mode: 'READ_ONLY' });
      const connection = await instance.connect();
      process.stdout.write('open\\n');
      process.stdin.once('data', async () => {
        const rows = (await connection.runAndReadAll('SELECT count(*) FROM invocation')).getRows();
        process.stdout.write(String(rows[0][0]) + '\\n');
        connection.closeSync();
        instance.closeSync();
        process.exit(0);
      });
    })().catch((error) => { process.stderr.write(String(error)); process.exit(1); });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  let buffered = '';
  let onLine: (() => void) | null = null;
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    lines.push(...parts);
    onLine?.();
  });
  const nextLine = (index: number) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        if (lines.length > index) resolve(lines[index]!);
      };
      onLine = check;
      child.once('exit', (code) => reject(new Error(`reader exited with ${code}`)));
      check();
    });
  const started = nextLine(0).then(() => undefined);
  let done: Promise<string> | null = null;
  return {
    started,
    get done() {
      done ??= started.then(() => {
        child.stdin.write('read\n');
        return nextLine(1);
      });
      return done;
    },
  };
}

/** The storage version DuckDB reports for the file (`v1.0.0+`, `v1.5.0+`), read as DuckDB says it. */
async function storageVersionOf(file: string): Promise<{ version: string | undefined; invocations: string[] }> {
  const db = await openDatabase(file, 'read');
  try {
    const tags = (await db.connection.runAndReadAll('SELECT tags FROM duckdb_databases() WHERE database_name = current_database()')).getRowObjectsJson()[0]
      ?.tags as { key: string; value: string }[];
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
      await db.connection.run(
        "INSERT INTO run_history (invocation_id, unique_id, defined_here, execution_time) SELECT 'inv-' || lpad((i // 9973)::VARCHAR, 4, '0'), 'node-' || (i % 9973), true, i FROM range(3000000) t(i)",
      );
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
      const rows = (
        await copy.connection.runAndReadAll(
          'SELECT count(*), sum(execution_time), count(DISTINCT unique_id), (SELECT count(*) FROM last_runs) FROM run_history',
        )
      )
        .getRows()[0]!
        .map(Number);
      expect(rows).toEqual([30000, (29999 * 30000) / 2, 9973, 9]);
      // In the order stored (rowid), not as asked: node by node, each node's runs in order.
      const stored = (await copy.connection.runAndReadAll('SELECT unique_id, invocation_id FROM run_history ORDER BY rowid'))
        .getRows()
        .map(([u, i]) => `${u} ${i}`);
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

  it('is due for compaction after an ingest once a quarter of the file is free, and again once it has grown by a third; compactStore copies it in place', async () => {
    const { root, backend } = await archiveWithOneRun();
    const file = path.join(root, 'store.duckdb');
    expect(await syncStore(backend, file, 'wait')).not.toHaveProperty('compactionDue');
    expect(await compactStore(file)).toMatchObject({ status: 'not-needed', bytes: statSync(file).size });
    await addFreeBlocks(file);
    const grown = statSync(file).size;
    expect(grown).toBeGreaterThan(COMPACT_MIN_BYTES);

    const second = '22222222-2222-4222-8222-222222222222';
    await captureRun(root, backend, second, '2026-01-06');
    const report = await syncStore(backend, file, 'wait');
    // The sync says so, and leaves the copy to its caller (capture: in the background).
    expect(report).toMatchObject({ status: 'synced', invocations: 1, compactionDue: true });
    expect(statSync(file).size).toBeGreaterThanOrEqual(grown);

    const due = statSync(file).size;
    const outcome = await compactStore(file);
    expect(outcome).toMatchObject({ status: 'compacted', fromBytes: due });
    const after = statSync(file).size;
    expect(after).toBeLessThan(grown / 4);
    expect(outcome).toMatchObject({ toBytes: after });
    expect((await storageVersionOf(file)).invocations.sort()).toEqual([INVOCATION, second]);
    // Nothing left beside it: neither the copy, its spill directory, a WAL nor the claim.
    expect(readdirSync(root).filter((name) => name.startsWith('store.duckdb'))).toEqual(['store.duckdb']);

    // Grown past a third, and past the size worth copying, with rows it keeps (so no free
    // blocks): due again at the next ingest.
    const kept = await openDatabase(file, 'write');
    try {
      await kept.connection.run(`CREATE TABLE kept AS SELECT md5(i::VARCHAR) || md5((i + 1)::VARCHAR) AS x FROM range(2000000) t(i)`);
    } finally {
      kept.close();
    }
    await captureRun(root, backend, '33333333-3333-4333-8333-333333333333', '2026-01-07');
    expect(statSync(file).size).toBeGreaterThan(Math.max((4 / 3) * after, COMPACT_MIN_BYTES));
    expect(await syncStore(backend, file, 'wait')).toMatchObject({ status: 'synced', invocations: 1, compactionDue: true });
  });

  it('copies while other processes read the store, and swaps only if nobody wrote it in between', async () => {
    const { root, backend } = await archiveWithOneRun();
    const file = path.join(root, 'store.duckdb');
    await syncStore(backend, file, 'wait');
    await addFreeBlocks(file);
    const before = statSync(file).size;

    // A write between the copy and the swap: the copy is dropped, the write kept.
    const written = await compactStore(file, {
      afterCopy: async () => {
        const writer = await openDatabase(file, 'write');
        try {
          await writer.connection.run("INSERT INTO store_meta VALUES ('written_meanwhile', 'yes')");
        } finally {
          writer.close();
        }
      },
    });
    expect(written).toEqual({ status: 'changed' });
    expect(statSync(file).size).toBeGreaterThanOrEqual(before);
    expect(await metaValue(file, 'written_meanwhile')).toBe('yes');
    const writtenSize = statSync(file).size;

    // A reader in another process during the copy: it reads on, and the swap waits for nobody.
    const reader = readInChildProcess(file);
    await reader.started;
    const read = await compactStore(file, { afterCopy: () => reader.done });
    expect(await reader.done).toBe('1');
    expect(read).toMatchObject({ status: 'compacted', fromBytes: writtenSize });
    expect(await metaValue(file, 'written_meanwhile')).toBe('yes');
    expect(readdirSync(root).filter((name) => name.startsWith('store.duckdb'))).toEqual(['store.duckdb']);
  });

  it('lets one process compact at a time: a claim held by a live process keeps others out; a dead one is taken over', async () => {
    const { root, backend } = await archiveWithOneRun();
    const file = path.join(root, 'store.duckdb');
    await syncStore(backend, file, 'wait');
    await addFreeBlocks(file);
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      expect(await claimCompaction(file, sleeper.pid!)).not.toBeNull();
      expect(compactionRunning(file)).toBe(true);
      expect(await compactStore(file)).toEqual({ status: 'busy' });
    } finally {
      sleeper.kill('SIGKILL');
      await new Promise((resolve) => sleeper.once('exit', resolve));
    }
    // As kill -9 leaves it: the claim of a process that is gone.
    expect(compactionRunning(file)).toBe(false);
    expect(await compactStore(file)).toMatchObject({ status: 'compacted' });
    expect(existsSync(`${file}.compacting`)).toBe(false);
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
