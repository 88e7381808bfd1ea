import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive, readChangeStamp, type Backend } from '../../../src/archive/index.js';
import { captureTarget } from '../../../src/capture/index.js';
import { openIfCurrent } from '../../../src/store/sync/archive-stamp.js';
import { syncStore } from '../../../src/store/index.js';
import { writeSyntheticTarget } from '../../helpers/synthetic-artifacts.js';

/**
 * A reading command on a store that is current opens it for reading at once: no listing of
 * the archive's records, no write open. Current means: nothing filed since the last full
 * catch-up, as the record folders' stamp tells (archive/change-stamp.ts).
 */
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

const FOLDERS = ['captures', 'journal', 'invocations', 'outputs', 'forgotten'];

/** Folder times an hour back, as they are once the racy window of a filing has passed (or `at`). */
function settle(archive: string, at = new Date(Date.now() - 3_600_000)): void {
  for (const folder of FOLDERS) {
    try {
      utimesSync(path.join(archive, 'records', folder), at, at);
    } catch {
      // absent folders have no time
    }
  }
}

function listings(backend: Backend): { backend: Backend; count: () => number } {
  let count = 0;
  const wrapped = Object.create(backend) as Backend;
  wrapped.list = (prefix, startAfter) => {
    count++;
    return backend.list(prefix, startAfter);
  };
  return { backend: wrapped, count: () => count };
}

async function setUp(): Promise<{ root: string; archive: string; backend: Backend; store: string; capture: (id: string, minute: number) => Promise<void> }> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-stamp-'));
  roots.push(root);
  const archive = path.join(root, 'archive');
  const backend = await openArchive(archive, { create: true });
  const capture = async (id: string, minute: number): Promise<void> => {
    const target = writeSyntheticTarget(
      { invocationId: id, generatedAt: new Date(Date.UTC(2026, 0, 5, 11, minute)).toISOString() },
      path.join(root, `target-${minute}`),
    );
    await captureTarget(backend, {
      targetDir: target,
      artifacts: ['manifest', 'run_results'],
      phase: 'manual',
      toolVersion: 'test',
      branch: 'main',
      now: new Date(Date.UTC(2026, 0, 5, 12, minute)),
    });
  };
  return { root, archive, backend, store: path.join(root, 'store.duckdb'), capture };
}

describe('a current store is read without catching up', () => {
  it('is current after a full catch-up whose folders had settled, and until the next filing', async () => {
    const { archive, backend, store, capture } = await setUp();
    await capture('11111111-1111-4111-8111-111111111111', 1);
    // Filed this instant (or by a clock ahead of ours): the folders' times cannot yet tell a
    // later filing apart. (A minute ahead, so that the machine's load cannot age it past the window.)
    settle(archive, new Date(Date.now() + 60_000));
    await syncStore(backend, store, 'wait');
    expect(await readChangeStamp(backend)).toBeNull();
    expect(await openIfCurrent(backend, store)).toBeNull();
    settle(archive);
    await syncStore(backend, store, 'wait');
    const counted = listings(backend);
    const db = await openIfCurrent(counted.backend, store);
    expect(db).not.toBeNull();
    db!.close();
    expect(counted.count()).toBe(0);

    await capture('22222222-2222-4222-8222-222222222222', 2);
    settle(archive);
    expect(await openIfCurrent(backend, store)).toBeNull();
    await syncStore(backend, store, 'wait');
    const again = await openIfCurrent(backend, store);
    expect(again).not.toBeNull();
    const rows = (await again!.connection.runAndReadAll('SELECT invocation_id FROM invocation ORDER BY 1')).getRows().map(([id]) => id);
    again!.close();
    expect(rows).toEqual(['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222']);
  });

  it('a capture of an invocation already archived (a rewritten manifest) changes the stamp', async () => {
    const { archive, backend, capture } = await setUp();
    await capture('33333333-3333-4333-8333-333333333333', 1);
    settle(archive);
    const before = await readChangeStamp(backend);
    expect(before).not.toBeNull();
    await capture('33333333-3333-4333-8333-333333333333', 2);
    settle(archive);
    expect(await readChangeStamp(backend)).not.toBe(before);
  });

  it('a store of another schema version, or with damage to read again, is not current', async () => {
    const { archive, backend, store, capture } = await setUp();
    await capture('44444444-4444-4444-8444-444444444444', 1);
    settle(archive);
    await syncStore(backend, store, 'wait');
    const { openDatabase } = await import('../../../src/store/index.js');
    const change = async (sql: string): Promise<void> => {
      const db = await openDatabase(store, 'write');
      await db.connection.run(sql);
      db.close();
    };
    const current = await openIfCurrent(backend, store);
    expect(current).not.toBeNull();
    current!.close();
    await change("INSERT INTO ingest_problem VALUES ('44444444-4444-4444-8444-444444444444', 'manifest', 'ab', 'damaged', NULL, 'a chunk is missing')");
    expect(await openIfCurrent(backend, store)).toBeNull();
    await change("DELETE FROM ingest_problem; UPDATE store_meta SET value = 'old' WHERE key = 'schema_version'");
    expect(await openIfCurrent(backend, store)).toBeNull();
  });
});
