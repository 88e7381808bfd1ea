import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openArchive, type Backend } from '../../../src/archive/index.js';
import { captureTarget } from '../../../src/capture/index.js';
import { inTransaction } from '../../../src/store/db/database.js';
import { refreshDerivedTables } from '../../../src/store/derived/derived-tables.js';
import { openDatabase, rebuildStore, syncStore } from '../../../src/store/index.js';
import { dumpStore, expectSameRows } from '../../helpers/store-dump.js';
import { syntheticManifest, syntheticRunResults, type SyntheticInvocation } from '../../helpers/synthetic-artifacts.js';

/**
 * Ingest refreshes node changes on a second connection, beside run and test history
 * (store/derived/derived-tables.ts). The rows must be those of the refresh done one step after the
 * other, and a failure of node changes must leave the invocation pending, so that the next
 * catch-up derives everything again.
 */
const failing = vi.hoisted(() => ({ invocation: null as string | null }));

vi.mock('../../../src/store/derived/node-changes.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/store/derived/node-changes.js')>();
  return {
    ...original,
    refreshNodeChanges: async (...args: Parameters<typeof original.refreshNodeChanges>) => {
      if (failing.invocation && args[1].includes(failing.invocation)) throw new Error('node changes failed (injected)');
      return original.refreshNodeChanges(...args);
    },
  };
});

const IDS = ['a1a1a1a1-0000-4000-8000-000000000001', 'b2b2b2b2-0000-4000-8000-000000000002', 'c3c3c3c3-0000-4000-8000-000000000003'];
function invocation(i: number): SyntheticInvocation {
  return {
    invocationId: IDS[i]!,
    generatedAt: `2024-07-0${i + 1}T10:00:00Z`,
    statuses: ['success', i === 2 ? 'error' : 'success', 'success'],
    modelCode: i === 0 ? {} : { 1: `select ${i} as edited` },
    tests: [{ name: 'not_null_m0_id', on: 0, status: i === 1 ? 'fail' : 'pass' }],
  };
}

async function pendingOf(file: string, id: string): Promise<number> {
  const db = await openDatabase(file, 'read');
  try {
    const rows = (
      await db.connection.runAndReadAll(
        'SELECT (SELECT count(*) FROM run_result_pending WHERE invocation_id = $1), (SELECT count(*) FROM run_history WHERE invocation_id = $1), (SELECT count(*) FROM node_change WHERE to_invocation = $1)',
        [id],
      )
    ).getRows()[0]!;
    expect(Number(rows[1]), 'run history of an invocation whose node changes failed').toBe(0);
    expect(Number(rows[2]), 'node changes to it').toBe(0);
    return Number(rows[0]);
  } finally {
    db.close();
  }
}

describe('tables derived at ingest, node changes beside the histories', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'attic-side-by-side-'));
  const store = path.join(root, 'store.duckdb');
  let backend: Backend;

  async function capture(i: number): Promise<void> {
    const dir = path.join(root, `t${i}`);
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'manifest.json'), syntheticManifest(invocation(i)));
    writeFileSync(path.join(dir, 'run_results.json'), syntheticRunResults(invocation(i)));
    await captureTarget(backend, {
      targetDir: dir,
      artifacts: ['manifest', 'run_results'],
      phase: 'manual',
      toolVersion: 'test',
      branch: 'main',
      now: new Date(Date.parse('2024-07-10T00:00:00Z') + i * 60_000),
    });
  }

  beforeAll(async () => {
    backend = await openArchive(path.join(root, 'archive'), { create: true });
    await capture(0);
    expect(await syncStore(backend, store, 'wait')).toMatchObject({ status: 'synced', problems: [] });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('leaves an invocation pending, with no history, when its node changes fail', async () => {
    await capture(1);
    failing.invocation = IDS[1]!;
    await expect(syncStore(backend, store, 'wait')).rejects.toThrow(/node changes failed/);
    failing.invocation = null;
    expect(await pendingOf(store, IDS[1]!)).toBeGreaterThan(0);
  });

  it('derives it all at the next catch-up: the store is what a rebuild derives', async () => {
    await capture(2);
    expect(await syncStore(backend, store, 'wait')).toMatchObject({ status: 'synced', problems: [] });
    const rebuilt = path.join(root, 'rebuilt.duckdb');
    await rebuildStore(backend, rebuilt);
    expectSameRows(await dumpStore(store), await dumpStore(rebuilt));
  });

  it('gives the rows of the refresh done one step after the other', async () => {
    const sequential = path.join(root, 'sequential.duckdb');
    copyFileSync(store, sequential);
    const db = await openDatabase(sequential, 'write');
    try {
      await inTransaction(db.connection, () => refreshDerivedTables(db.connection, IDS, IDS));
    } finally {
      db.close();
    }
    const [side, steps] = [await dumpStore(store), await dumpStore(sequential)];
    expect(side.node_change!.length).toBeGreaterThan(0);
    // Three invocations, each with three model results and one test result.
    expect(side.run_history!.length).toBe(12);
    expectSameRows(side, steps);
  });
});
