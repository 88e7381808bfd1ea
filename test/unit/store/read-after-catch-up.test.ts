import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openArchive } from '../../../src/archive/index.js';
import { captureTarget } from '../../../src/capture/index.js';
import type { AtticConfig } from '../../../src/config/resolve.js';
import { withCurrentStore } from '../../../src/store/index.js';
import { holdStore } from '../../helpers/store-holder.js';
import type { WatchedProcess } from '../../helpers/watched-process.js';
import { writeSyntheticTarget } from '../../helpers/synthetic-artifacts.js';

/**
 * A reading command catches the store up (a write), closes it, and opens it again to read. In
 * between, another process may take it for writing: a compaction's swap, or another command's
 * catch-up (the VS Code extension runs several at once when the archive changes). The reader
 * must wait for it as it waits for any writer, not fail at once with "in use".
 */
const writers: WatchedProcess[] = [];
let afterEachCatchUp: ((file: string) => Promise<void>) | null = null;

vi.mock('../../../src/store/sync/sync.js', async (importOriginal) => {
  const sync = await importOriginal<typeof import('../../../src/store/sync/sync.js')>();
  return {
    ...sync,
    syncStore: async (...args: Parameters<typeof sync.syncStore>) => {
      const report = await sync.syncStore(...args);
      await afterEachCatchUp?.(args[1]);
      return report;
    },
  };
});

const root = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-read-after-catch-up-'));
afterAll(async () => {
  for (const writer of writers) writer.child.kill();
  await Promise.all(writers.map((w) => w.ended));
  rmSync(root, { recursive: true, force: true });
});

describe('a writer that takes the store between the catch-up and the read', () => {
  it('is waited for, and the read answers with what the catch-up ingested', async () => {
    const archive = path.join(root, 'archive');
    const backend = await openArchive(archive, { create: true });
    const id = '5eadaf7e-0000-4000-8000-000000000001';
    const target = writeSyntheticTarget({ invocationId: id }, path.join(root, 'target'));
    await captureTarget(backend, {
      targetDir: target,
      artifacts: ['manifest', 'run_results'],
      phase: 'manual',
      toolVersion: 'test',
      branch: 'main',
      now: new Date(),
    });
    const config = { archiveLocation: archive, databaseFile: path.join(root, 'store.duckdb'), remote: null, offline: false } as unknown as AtticConfig;

    let catchUps = 0;
    afterEachCatchUp = async (file) => {
      // Only after the first catch-up: the writer holds the store when the reader opens it.
      if (catchUps++ > 0) return;
      writers.push(await holdStore(file, { forMs: 600 }));
    };

    const started = Date.now();
    const ids = await withCurrentStore(config, async (db) =>
      (await db.connection.runAndReadAll('SELECT invocation_id FROM invocation')).getRows().map(([v]) => String(v)),
    );
    expect(ids).toEqual([id]);
    expect(catchUps).toBeGreaterThan(1); // it tried again once the writer was gone
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await writers[0]!.ended).code).toBe(0);
  }, 30_000);
});
