import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive } from '../../../src/archive/index.js';
import { captureTarget } from '../../../src/capture/index.js';
import { openDatabase, syncStore } from '../../../src/store/index.js';
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
});
