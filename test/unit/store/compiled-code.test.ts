import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive, type Backend } from '../../../src/archive/index.js';
import { captureTarget } from '../../../src/capture/index.js';
import { openDatabase, rebuildStore, syncStore } from '../../../src/store/index.js';
import { plainResult } from '../../../src/store/db/plain-rows.js';
import { ARTIFACT_TYPES } from '../../../src/vocab/index.js';
import { syntheticManifest, syntheticRunResults } from '../../helpers/synthetic-artifacts.js';
import { dumpStore, expectSameRows, type StoreDump } from '../../helpers/store-dump.js';

/**
 * Compiled SQL belongs to the invocation that compiled it. One model, the same definition in
 * three invocations: `dev` compiles it against dev, `prod` against prod, `parse` compiles
 * nothing. Captured as `dbtattic run` captures them: dev's manifest alone first (dbt writes it
 * at parse time, before compiling), then prod's whole run, then dev's rewritten manifest and its
 * results, then the parse.
 */
const MODEL = 'model.synthetic.m0';
const SQL = { dev: 'select 1 as id from dev_schema.src', prod: 'select 1 as id from prod_schema.src' };

function writeTarget(dir: string, invocationId: string, generatedAt: string, compiled: string | null, withResults: boolean): string {
  mkdirSync(dir, { recursive: true });
  const manifest = JSON.parse(syntheticManifest({ invocationId, generatedAt })) as { nodes: Record<string, Record<string, unknown>> };
  if (compiled !== null)
    Object.assign(manifest.nodes[MODEL]!, {
      compiled: true,
      compiled_code: compiled,
      relation_name: `"db"."${compiled.includes('dev') ? 'dev' : 'prod'}_schema"."m0"`,
    });
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
  if (withResults) writeFileSync(path.join(dir, 'run_results.json'), syntheticRunResults({ invocationId, generatedAt, command: 'build' }));
  return dir;
}

describe('compiled code in the store', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'attic-compiled-'));
  const incremental = path.join(root, 'incremental.duckdb');
  const ids = { dev: 'dddddddd-0000-4000-8000-000000000001', prod: 'eeeeeeee-0000-4000-8000-000000000002', parse: 'ffffffff-0000-4000-8000-000000000003' };
  let backend: Backend;
  let caughtUp: StoreDump;

  beforeAll(async () => {
    backend = await openArchive(path.join(root, 'archive'), { create: true });
    const captures: [string, string][] = [
      [writeTarget(path.join(root, '1'), ids.dev, '2024-05-01T10:00:01Z', null, false), '2024-05-01T10:00:02Z'],
      [writeTarget(path.join(root, '2'), ids.prod, '2024-05-01T10:00:03Z', SQL.prod, true), '2024-05-01T10:00:04Z'],
      [writeTarget(path.join(root, '3'), ids.dev, '2024-05-01T10:00:05Z', SQL.dev, true), '2024-05-01T10:00:06Z'],
      [writeTarget(path.join(root, '4'), ids.parse, '2024-05-01T10:00:07Z', null, false), '2024-05-01T10:00:08Z'],
    ];
    for (const [targetDir, at] of captures) {
      await captureTarget(backend, { targetDir, artifacts: ARTIFACT_TYPES, phase: 'manual', toolVersion: 'test', branch: 'main', now: new Date(at) });
      expect(await syncStore(backend, incremental, 'wait')).toMatchObject({ status: 'synced', problems: [] });
    }
    caughtUp = await dumpStore(incremental);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('shows each invocation its own compiled SQL and relation, and none where it compiled none', async () => {
    const db = await openDatabase(incremental, 'read');
    try {
      const rows = plainResult(
        await db.connection.runAndReadAll('SELECT invocation_id, compiled_code, relation_name FROM node WHERE unique_id = $1 ORDER BY invocation_id', [MODEL]),
      ).rows;
      expect(rows).toEqual([
        { invocation_id: ids.dev, compiled_code: SQL.dev, relation_name: '"db"."dev_schema"."m0"' },
        { invocation_id: ids.prod, compiled_code: SQL.prod, relation_name: '"db"."prod_schema"."m0"' },
        { invocation_id: ids.parse, compiled_code: null, relation_name: null },
      ]);
      expect(
        new Set(
          plainResult(await db.connection.runAndReadAll('SELECT node_version_id FROM node WHERE unique_id = $1', [MODEL])).rows.map((r) => r.node_version_id),
        ).size,
      ).toBe(1);
    } finally {
      db.close();
    }
  });

  it('is what a rebuild derives, byte for byte, table by table', async () => {
    const rebuilt = path.join(root, 'rebuilt.duckdb');
    await rebuildStore(backend, rebuilt);
    expectSameRows(await dumpStore(rebuilt), caughtUp);
  });
});
