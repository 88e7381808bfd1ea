import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '../../../src/archive/index.js';
import { openDatabase, syncStore } from '../../../src/store/index.js';
import { plainResult } from '../../../src/store/db/plain-rows.js';
import { isBuildingCommand, NON_BUILDING_COMMANDS } from '../../../src/vocab/index.js';
import { corpusTargetDirs, hasCorpus } from '../../helpers/corpus.js';
import { buildCorpusStore, type CorpusStore } from '../../helpers/corpus-store.js';

/**
 * docs generate through dbt-rpc (`which: rpc`, `compile: true`, a catalog beside it) compiles
 * every node and writes a `success` for each in milliseconds: no execution. The corpus holds
 * five such runs; the runtime and test views must not count them.
 */
interface RpcRun {
  dir: string;
  invocationId: string;
  results: number;
}

function rpcRuns(): RpcRun[] {
  return corpusTargetDirs().flatMap((dir) => {
    try {
      const doc = JSON.parse(readFileSync(path.join(dir, 'run_results.json'), 'utf8')) as {
        args?: { which?: string };
        metadata: { invocation_id: string };
        results: unknown[];
      };
      return doc.args?.which === 'rpc' ? [{ dir, invocationId: doc.metadata.invocation_id, results: doc.results.length }] : [];
    } catch {
      return [];
    }
  });
}

let store: CorpusStore;
let runs: RpcRun[];
const query = (sql: string, params: string[] = []): Promise<Record<string, unknown>[]> => store.query(sql, params);

describe.skipIf(!hasCorpus)('docs generate through dbt-rpc', () => {
  beforeAll(async () => {
    runs = rpcRuns();
    store = await buildCorpusStore(runs.map((r) => r.dir));
  });
  afterAll(() => store?.close());

  it('is named docs generate and is no build', async () => {
    expect(runs.length).toBeGreaterThanOrEqual(5);
    for (const run of runs) {
      expect(await query('SELECT command, builds FROM v_invocation_sequence WHERE invocation_id = $1', [run.invocationId]), run.dir).toEqual([
        { command: 'docs generate', builds: false },
      ]);
    }
  });

  it('gives no execution to the runtime and test views', async () => {
    const ids = runs.map((r) => r.invocationId);
    const inRuns = `(${ids.map((_, i) => `$${i + 1}`).join(', ')})`;
    expect(await query(`SELECT count(*) AS n FROM run_result WHERE invocation_id IN ${inRuns}`, ids)).toEqual([
      { n: runs.reduce((sum, r) => sum + r.results, 0) },
    ]);
    expect(await query(`SELECT count(*) AS n FROM v_run_history WHERE completed AND invocation_id IN ${inRuns}`, ids)).toEqual([{ n: 0 }]);
    expect(await query('SELECT count(*) AS n FROM v_node_runtime')).toEqual([{ n: 0 }]);
    expect(await query('SELECT count(*) AS n FROM v_test_history')).toEqual([{ n: 0 }]);
  });
});

describe('which commands build', () => {
  it('is one rule in TypeScript and in the store: command_builds agrees with isBuildingCommand', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-command-builds-'));
    const store = path.join(dir, 'store.duckdb');
    await syncStore(await openArchive(path.join(dir, 'archive'), { create: true }), store, 'wait');
    const database = await openDatabase(store, 'read');
    try {
      const names = [...NON_BUILDING_COMMANDS, 'build', 'run', 'test', 'seed', 'snapshot', 'retry', 'rpc', 'run-operation'];
      for (const name of names) {
        const row = plainResult(await database.connection.runAndReadAll('SELECT command_builds($1::VARCHAR) AS builds', [name])).rows[0];
        expect(row?.builds, name).toBe(isBuildingCommand(name));
      }
      expect(isBuildingCommand('docs generate')).toBe(false);
    } finally {
      database.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
