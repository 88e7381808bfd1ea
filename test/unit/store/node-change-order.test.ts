import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive, type Backend } from '../../../src/archive/index.js';
import { captureTarget } from '../../../src/capture/index.js';
import { openDatabase, rebuildStore, syncStore } from '../../../src/store/index.js';
import { plainResult } from '../../../src/store/db/plain-rows.js';
import { syntheticManifest, syntheticRunResults } from '../../helpers/synthetic-artifacts.js';
import { dumpStore, expectSameRows } from '../../helpers/store-dump.js';

/**
 * node_change is derived at ingest, so it must come out the same whatever order artifacts
 * arrive in. Four invocations of one branch, A < B < C < D by generated_at: B edits m1's code, D
 * drops m2 and adds m3. They are captured out of order, as `run` and late pushes file them: A's
 * manifest alone (dbt writes it at parse time), then A's results, C, B (older than C, filed
 * after it), D's manifest alone, then D's results. The expected rows are read from the
 * manifests' JSON: consecutive manifests compared node by node.
 */
type Manifest = { metadata: { invocation_id: string }; nodes: Record<string, { raw_code: string }> };

const IDS = {
  A: 'aaaaaaaa-0000-4000-8000-00000000000a',
  B: 'bbbbbbbb-0000-4000-8000-00000000000b',
  C: 'cccccccc-0000-4000-8000-00000000000c',
  D: 'dddddddd-0000-4000-8000-00000000000d',
} as const;
type Name = keyof typeof IDS;
const AT: Record<Name, string> = { A: '2024-06-01T10:00:00Z', B: '2024-06-01T11:00:00Z', C: '2024-06-01T12:00:00Z', D: '2024-06-01T13:00:00Z' };

function manifestOf(name: Name): Manifest {
  const doc = JSON.parse(syntheticManifest({ invocationId: IDS[name], generatedAt: AT[name], statuses: ['success', 'success', 'success'] })) as Manifest;
  if (name !== 'A') doc.nodes['model.synthetic.m1']!.raw_code = 'select 1 as id where true';
  if (name === 'D') {
    doc.nodes['model.synthetic.m3'] = {
      ...doc.nodes['model.synthetic.m2']!,
      unique_id: 'model.synthetic.m3',
      name: 'm3',
      raw_code: 'select 3 as id',
    } as Manifest['nodes'][string];
    delete doc.nodes['model.synthetic.m2'];
  }
  return doc;
}

/** What v_node_changes must say, from the manifests' JSON: each node compared across consecutive manifests. */
function expectedChanges(order: readonly Manifest[]): { unique_id: string; from_invocation: string; to_invocation: string; change: string }[] {
  const rows = [];
  for (let i = 1; i < order.length; i++) {
    const [was, now] = [order[i - 1]!, order[i]!];
    const pair = { from_invocation: was.metadata.invocation_id, to_invocation: now.metadata.invocation_id };
    for (const id of new Set([...Object.keys(was.nodes), ...Object.keys(now.nodes)])) {
      const [before, after] = [was.nodes[id], now.nodes[id]];
      if (!before) rows.push({ unique_id: id, ...pair, change: 'added' });
      else if (!after) rows.push({ unique_id: id, ...pair, change: 'removed' });
      else if (before.raw_code !== after.raw_code) rows.push({ unique_id: id, ...pair, change: 'raw_code' });
    }
  }
  return rows.sort((a, b) => `${a.to_invocation}${a.unique_id}`.localeCompare(`${b.to_invocation}${b.unique_id}`));
}

describe('node changes derived at ingest', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'attic-change-order-'));
  const incremental = path.join(root, 'incremental.duckdb');
  let backend: Backend;
  let n = 0;

  async function capture(name: Name, withResults: boolean): Promise<void> {
    const dir = path.join(root, `t${++n}`);
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifestOf(name)));
    if (withResults)
      writeFileSync(
        path.join(dir, 'run_results.json'),
        syntheticRunResults({ invocationId: IDS[name], generatedAt: AT[name], statuses: ['success', 'success', 'success'] }),
      );
    await captureTarget(backend, {
      targetDir: dir,
      artifacts: ['manifest', 'run_results'],
      phase: 'manual',
      toolVersion: 'test',
      branch: 'main',
      now: new Date(Date.parse('2024-06-02T00:00:00Z') + n * 60_000),
    });
    expect(await syncStore(backend, incremental, 'wait')).toMatchObject({ status: 'synced', problems: [] });
  }

  async function changesIn(file: string): Promise<Record<string, unknown>[]> {
    const db = await openDatabase(file, 'read');
    try {
      const sql = `SELECT unique_id, from_invocation, to_invocation,
                          CASE WHEN change_kind IN ('added', 'removed') THEN change_kind ELSE array_to_string(what_changed, ',') END AS change
                   FROM node_change ORDER BY to_invocation, unique_id`;
      return plainResult(await db.connection.runAndReadAll(sql)).rows;
    } finally {
      db.close();
    }
  }

  beforeAll(async () => {
    backend = await openArchive(path.join(root, 'archive'), { create: true });
    await capture('A', false);
    await capture('A', true);
    await capture('C', true);
    await capture('B', true);
    await capture('D', false);
    await capture('D', true);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('holds the changes between consecutive manifests, with an older invocation filed late placed between its neighbours', async () => {
    const expected = expectedChanges((['A', 'B', 'C', 'D'] as const).map(manifestOf));
    expect(expected.map((r) => r.change)).toEqual(['raw_code', 'removed', 'added']);
    // The model's fingerprint follows its code; both are what differs.
    expect(await changesIn(incremental)).toEqual(expected.map((r) => (r.change === 'raw_code' ? { ...r, change: 'raw_code,fingerprint' } : r)));
  });

  it('answers v_node_changes from it, with the names of the nodes', async () => {
    const db = await openDatabase(incremental, 'read');
    try {
      const rows = plainResult(
        await db.connection.runAndReadAll('SELECT unique_id, name, from_invocation, to_invocation FROM v_node_changes ORDER BY to_seq, unique_id'),
      ).rows;
      const expected = expectedChanges((['A', 'B', 'C', 'D'] as const).map(manifestOf));
      expect(rows).toEqual(expected.map(({ change: _, ...r }) => ({ ...r, name: r.unique_id.split('.')[2] })));
    } finally {
      db.close();
    }
  });

  it('is what a rebuild derives, table by table', async () => {
    const rebuilt = path.join(root, 'rebuilt.duckdb');
    await rebuildStore(backend, rebuilt);
    expectSameRows(await dumpStore(rebuilt), await dumpStore(incremental));
  });
});
