import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive, type Backend } from '../../../src/archive/index.js';
import { captureTarget } from '../../../src/capture/index.js';
import { listArchivedInvocations, writeStateDir } from '../../../src/state/index.js';
import { openDatabase, rebuildStore, syncStore } from '../../../src/store/index.js';
import { plainResult } from '../../../src/store/db/plain-rows.js';
import { writeSyntheticTarget } from '../../helpers/synthetic-artifacts.js';

/**
 * README: "one (invocation, artifact) may have several records; the one with the newest
 * generated_at (then captured_at) is authoritative". dbt writes the manifest at parse time and
 * again at the end of a run; here the later write is captured first, so "last filed" and
 * "newest" disagree, and the expected nodes are read from the manifests' own JSON.
 * (generated_at in mixed forms, `…Z` beside `+00:00`, is pinned where that rule is implemented.)
 */
const INVOCATION = '0a0a0a0a-1111-4222-8333-444444444444';
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

interface Filed {
  backend: Backend;
  storeFile: string;
  early: string;
  late: string;
}

function nodesOf(dir: string): string[] {
  return Object.keys((JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { nodes: object }).nodes).sort();
}

/** Files `first` then `second` (each a target/ dir) in the archive, syncing the store after each when `syncBetween`. */
async function fileInOrder(first: string, second: string, syncBetween: boolean): Promise<{ backend: Backend; storeFile: string }> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-newest-'));
  roots.push(root);
  const backend = await openArchive(path.join(root, 'archive'), { create: true });
  const storeFile = path.join(root, 'store.duckdb');
  for (const [i, dir] of [first, second].entries()) {
    await captureTarget(backend, {
      targetDir: dir,
      artifacts: ['manifest'],
      phase: 'manual',
      toolVersion: 'test',
      branch: 'main',
      now: new Date(Date.UTC(2026, 0, 5, 12, i)),
    });
    if (syncBetween) await syncStore(backend, storeFile, 'wait');
  }
  if (!syncBetween) await syncStore(backend, storeFile, 'wait');
  return { backend, storeFile };
}

async function storedNodes(storeFile: string): Promise<string[]> {
  const db = await openDatabase(storeFile, 'read');
  try {
    const result = await db.connection.runAndReadAll('SELECT unique_id FROM node_invocation WHERE invocation_id = $1 ORDER BY unique_id', [INVOCATION]);
    return plainResult(result).rows.map((r) => String(r.unique_id));
  } finally {
    db.close();
  }
}

function twoWrites(earlyAt: string, lateAt: string): Omit<Filed, 'backend' | 'storeFile'> {
  // The parse-time manifest lists one model, the end-of-run one three.
  const early = writeSyntheticTarget({ invocationId: INVOCATION, generatedAt: earlyAt, statuses: ['success'] });
  const late = writeSyntheticTarget({ invocationId: INVOCATION, generatedAt: lateAt, statuses: ['success', 'success', 'success'] });
  return { early, late };
}

describe('the newest record of an artifact wins, whatever order it was filed in', () => {
  const { early, late } = twoWrites('2026-01-05T11:00:00.000001Z', '2026-01-05T11:30:00.000000Z');

  it.each([
    ['newest filed first, one sync', true, false],
    ['newest filed first, a sync after each capture', true, true],
    ['newest filed last, one sync', false, false],
    ['newest filed last, a sync after each capture', false, true],
  ])('in the store: %s', async (_label, newestFirst, syncBetween) => {
    const [first, second] = newestFirst ? [late, early] : [early, late];
    const { storeFile } = await fileInOrder(first, second, syncBetween);
    expect(nodesOf(late)).toHaveLength(3);
    expect(await storedNodes(storeFile)).toEqual(nodesOf(late));
  });

  it('in a rebuilt store', async () => {
    const { backend, storeFile } = await fileInOrder(late, early, false);
    await rebuildStore(backend, storeFile);
    expect(await storedNodes(storeFile)).toEqual(nodesOf(late));
  });

  it.each([true, false])('in the --state directory (newest filed first: %s)', async (newestFirst) => {
    const [first, second] = newestFirst ? [late, early] : [early, late];
    const { backend } = await fileInOrder(first, second, false);
    const [invocation] = await listArchivedInvocations(backend);
    const out = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-newest-state-'));
    roots.push(out);
    await writeStateDir(backend, invocation!, out);
    expect(readFileSync(path.join(out, 'manifest.json')).equals(readFileSync(path.join(late, 'manifest.json')))).toBe(true);
  });
});

describe('two writes with the same generated_at: the later capture wins', () => {
  const { early: a, late: b } = twoWrites('2026-01-05T11:00:00Z', '2026-01-05T11:00:00Z');

  it.each([
    ['a', 'b'],
    ['b', 'a'],
  ])('filed %s then %s', async (firstName, secondName) => {
    const dirs: Record<string, string> = { a, b };
    const { backend, storeFile } = await fileInOrder(dirs[firstName]!, dirs[secondName]!, true);
    const lastCaptured = dirs[secondName]!;
    expect(await storedNodes(storeFile)).toEqual(nodesOf(lastCaptured));
    const [invocation] = await listArchivedInvocations(backend);
    expect(invocation!.artifacts.manifest!.captured_at).toBe('2026-01-05T12:01:00.000Z');
  });
});
