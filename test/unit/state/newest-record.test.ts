import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive } from '../../../src/archive/index.js';
import { captureTarget } from '../../../src/capture/index.js';
import { chooseState } from '../../../src/state/index.js';
import { openDatabase, syncStore } from '../../../src/store/index.js';
import { sha256 } from '../../../src/vocab/index.js';
import { writeSyntheticTarget } from '../../helpers/synthetic-artifacts.js';

/**
 * dbt rewrites an invocation's manifest; the newer write is authoritative. Here the newer one
 * (25.5 s) is captured first and its generated_at sorts first as text ('.' < 'Z'), so only a
 * comparison of instants picks it, in state and in the store alike.
 */
describe('the authoritative record of an invocation artifact', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'attic-newest-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const invocationId = 'c0ffee00-0000-4000-8000-000000000001';

  it('is the newest write by instant, whatever the spelling or capture order', async () => {
    const newer = writeSyntheticTarget({ invocationId, generatedAt: '2024-05-01T10:00:25.5Z', statuses: ['success', 'success'] }, path.join(root, 'newer'));
    const older = writeSyntheticTarget({ invocationId, generatedAt: '2024-05-01T10:00:25Z', statuses: ['success'] }, path.join(root, 'older'));
    const backend = await openArchive(path.join(root, 'archive'), { create: true });
    const capture = (targetDir: string, at: string) =>
      captureTarget(backend, { targetDir, artifacts: ['manifest'], phase: 'manual', toolVersion: 'test', branch: 'main', now: new Date(at) });
    await capture(newer, '2024-05-01T10:01:00Z');
    await capture(older, '2024-05-01T10:02:00Z');

    const chosen = await chooseState(backend, { invocation: invocationId });
    expect(chosen.invocation.artifacts.manifest?.sha256).toBe(sha256(readFileSync(path.join(newer, 'manifest.json'))));

    const file = path.join(root, 'store.duckdb');
    await syncStore(backend, file, 'wait');
    const db = await openDatabase(file, 'read');
    try {
      const nodes = (
        await db.connection.runAndReadAll('SELECT count(*)::INTEGER FROM node_invocation WHERE invocation_id = $1', [invocationId])
      ).getRows()[0]?.[0];
      expect(nodes).toBe(2);
    } finally {
      db.close();
    }
  });
});
