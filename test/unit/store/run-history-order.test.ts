import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { applyForget } from '../../../src/retention/index.js';
import { openDatabase, rebuildStore, syncStore } from '../../../src/store/index.js';
import { plainResult } from '../../../src/store/db/plain-rows.js';
import { file, type Filing } from '../../helpers/archive-builder.js';
import { syntheticManifest } from '../../helpers/synthetic-artifacts.js';
import { dumpStore, expectSameRows } from '../../helpers/store-dump.js';

/**
 * run_history matches each result to its node when invocations are ingested, so it must come
 * out as v_run_history's rule says whatever order artifacts arrive in. A < B < C by
 * generated_at: A's manifest has m0 and m1, B's m0, m1 and m2; C filed run results alone (m0,
 * m1, m2), so its results take the latest earlier manifest's nodes. C is filed before B, which
 * is filed late; then B is forgotten. The expected nodes are read from the manifests' JSON: for
 * each result, the latest manifest up to its run that lists the node.
 */
type Manifest = { metadata: { invocation_id: string; generated_at: string }; nodes: Record<string, { name: string }> };

const at = (hour: number): string => `2024-06-01T${String(hour).padStart(2, '0')}:00:00Z`;
const A: Filing = { invocationId: 'aaaaaaaa-0000-4000-8000-00000000000a', generatedAt: at(10), capturedAt: at(20), statuses: ['success', 'success'] };
const B: Filing = {
  invocationId: 'bbbbbbbb-0000-4000-8000-00000000000b',
  generatedAt: at(11),
  capturedAt: at(22),
  statuses: ['success', 'success', 'success'],
};
const C: Filing = {
  invocationId: 'cccccccc-0000-4000-8000-00000000000c',
  generatedAt: at(12),
  capturedAt: at(21),
  statuses: ['success', 'success', 'success'],
  artifacts: ['run_results'],
};

const manifestOf = (filing: Filing): Manifest => JSON.parse(syntheticManifest(filing)) as Manifest;

/** For each result of `runs` (m0.. per status), the name of the node in the latest of `manifests` generated up to it, or null. */
function expectedNames(runs: readonly Filing[], manifests: readonly Manifest[]): { invocation_id: string; unique_id: string; name: string | null }[] {
  const rows = [];
  for (const run of runs) {
    for (let i = 0; i < run.statuses!.length; i++) {
      const uniqueId = `model.synthetic.m${i}`;
      const defining = manifests
        .filter((m) => m.metadata.generated_at <= run.generatedAt! && m.nodes[uniqueId])
        .sort((x, y) => x.metadata.generated_at.localeCompare(y.metadata.generated_at))
        .at(-1);
      rows.push({ invocation_id: run.invocationId, unique_id: uniqueId, name: defining?.nodes[uniqueId]?.name ?? null });
    }
  }
  return rows.sort((x, y) => `${x.invocation_id}${x.unique_id}`.localeCompare(`${y.invocation_id}${y.unique_id}`));
}

describe('run history derived at ingest', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'attic-run-history-'));
  const incremental = path.join(root, 'incremental.duckdb');
  const backend = new MemBackend();

  async function names(store: string): Promise<Record<string, unknown>[]> {
    const db = await openDatabase(store, 'read');
    try {
      return plainResult(await db.connection.runAndReadAll('SELECT invocation_id, unique_id, name FROM v_run_history ORDER BY invocation_id, unique_id')).rows;
    } finally {
      db.close();
    }
  }

  async function expectRebuildEqual(): Promise<void> {
    const rebuilt = path.join(root, `rebuilt-${Date.now()}.duckdb`);
    await rebuildStore(backend, rebuilt);
    expectSameRows(await dumpStore(rebuilt), await dumpStore(incremental));
  }

  beforeAll(async () => {
    await backend.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 1\n'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('matches results without a manifest to the latest earlier one, and a node no manifest lists to none', async () => {
    for (const filing of [A, C]) {
      await file(backend, filing);
      expect(await syncStore(backend, incremental, 'wait')).toMatchObject({ problems: [] });
    }
    const expected = expectedNames([A, C], [manifestOf(A)]);
    expect(expected.filter((r) => r.name === null).map((r) => r.unique_id)).toEqual(['model.synthetic.m2']);
    expect(await names(incremental)).toEqual(expected);
  });

  it('matches them again when an earlier manifest is filed late, as a rebuild does', async () => {
    await file(backend, B);
    await syncStore(backend, incremental, 'wait');
    const expected = expectedNames([A, B, C], [manifestOf(A), manifestOf(B)]);
    expect(expected.filter((r) => r.name === null)).toEqual([]);
    expect(await names(incremental)).toEqual(expected);
    await expectRebuildEqual();
  });

  it('matches results a catch-up killed after ingest left unmatched, at the next catch-up', async () => {
    // Killed between ingest and the refresh: A's results read, not yet matched (schema/001-tables.sql).
    const db = await openDatabase(incremental, 'write');
    try {
      await db.connection.run(`INSERT INTO run_result_pending SELECT * FROM run_result WHERE invocation_id = '${A.invocationId}'`);
      await db.connection.run(`DELETE FROM run_history WHERE invocation_id = '${A.invocationId}'`);
      const rows = plainResult(
        await db.connection.runAndReadAll('SELECT count(*) AS results, (SELECT count(*) FROM run_result_pending) AS pending FROM run_result'),
      ).rows;
      expect(rows).toEqual([{ results: A.statuses!.length + B.statuses!.length + C.statuses!.length, pending: A.statuses!.length }]);
    } finally {
      db.close();
    }
    // Matched from the rows the store holds: nothing is read from the archive again.
    expect(await syncStore(backend, incremental, 'wait')).toMatchObject({ status: 'synced', invocations: 0, problems: [] });
    expect(await names(incremental)).toEqual(expectedNames([A, B, C], [manifestOf(A), manifestOf(B)]));
    await expectRebuildEqual();
  });

  it('matches them again when that manifest is forgotten, as a rebuild does', async () => {
    await applyForget(backend, [B.invocationId], 'test', new Date());
    await syncStore(backend, incremental, 'wait');
    expect(await names(incremental)).toEqual(expectedNames([A, C], [manifestOf(A)]));
    await expectRebuildEqual();
  });
});
