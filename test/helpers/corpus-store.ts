import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openArchive } from '../../src/archive/index.js';
import { captureTarget } from '../../src/capture/index.js';
import { compareNodes, openDatabase, syncStore, type Database } from '../../src/store/index.js';
import { plainResult } from '../../src/store/db/plain-rows.js';
import { ARTIFACT_TYPES } from '../../src/vocab/index.js';

/**
 * A store of a few corpus target dirs, captured in the order given (a minute apart, on branch
 * main) and synced, in-process: for tests about what the store makes of a real sequence.
 */
export interface CorpusStore {
  db: Database;
  query(sql: string, params?: string[]): Promise<Record<string, unknown>[]>;
  /** What `diff A B` lists as node changes. */
  diffNodes(a: string, b: string): Promise<Record<string, unknown>[]>;
  close(): void;
}

export async function buildCorpusStore(dirs: string[]): Promise<CorpusStore> {
  const root = await buildCorpusStoreDir(mkdtempSync(path.join(os.tmpdir(), 'attic-corpus-store-')), dirs);
  const db = await openDatabase(path.join(root, 'store.duckdb'), 'write');
  return {
    db,
    query: async (sql, params = []) => plainResult(await db.connection.runAndReadAll(sql, params)).rows,
    diffNodes: (a, b) => compareNodes(db.connection, a, b),
    close() {
      db.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * The same store, left in `root` as a store directory (archive/, store.duckdb) that the CLI opens
 * with `--store root` or DBTATTIC_STORE, without a dbt project.
 */
export async function buildCorpusStoreDir(root: string, dirs: string[]): Promise<string> {
  const backend = await openArchive(path.join(root, 'archive'), { create: true });
  for (const [i, dir] of dirs.entries()) {
    await captureTarget(backend, {
      targetDir: dir,
      artifacts: ARTIFACT_TYPES,
      phase: 'manual',
      toolVersion: 'test',
      branch: 'main',
      now: new Date(Date.parse('2026-01-01T00:00:00Z') + i * 60_000),
    });
  }
  await syncStore(backend, path.join(root, 'store.duckdb'), 'wait');
  return root;
}
