import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendFor } from '../../../src/archive/index.js';
import { exportDataset } from '../../../src/export/index.js';
import { CORPUS_DIR, hasCorpus } from '../../helpers/corpus.js';
import { buildCorpusStore, type CorpusStore } from '../../helpers/corpus-store.js';

/**
 * The dataset against the store it came from: learn_dbt's eight captures (models, tests, a
 * project rename). Expected rows come from the store's own views (what `dbtattic query` reads),
 * the dataset's from its Parquet files as any engine reads them.
 */
/** The dataset's key of a digest column (src/export/tables.ts): its first 15 hex digits, a BIGINT. */
const KEY = (column: string): string => `('0x' || left(${column}, 15))::BIGINT`;

const dirs = (): string[] => {
  const seq = path.join(CORPUS_DIR, 'learn-dbt-nigel-snowflake-1.0-to-1.3', 'target-seq');
  return readdirSync(seq)
    .sort()
    .map((d) => path.join(seq, d));
};

describe.skipIf(!hasCorpus)('exportDataset', () => {
  let store: CorpusStore;
  let root: string;
  beforeAll(async () => {
    store = await buildCorpusStore(dirs());
    root = mkdtempSync(path.join(os.tmpdir(), 'attic-export-'));
  }, 120_000);
  afterAll(() => {
    store?.close();
    rmSync(root, { recursive: true, force: true });
  });
  const parquet = (dir: string, table: string) => `read_parquet('${dir}/${table}/**/*.parquet', hive_partitioning = true)`;

  it('writes every run result of the store, once, and a second export writes nothing', async () => {
    const dir = path.join(root, 'once');
    const first = await exportDataset(store.db, backendFor(dir), { project: null, forgotten: new Set() });
    expect(first.written).toBeGreaterThan(0);
    const expected = await store.query('SELECT invocation_id, unique_id, status, execution_time FROM v_run_history ORDER BY ALL');
    const got = await store.query(`SELECT invocation_id, unique_id, status, execution_time FROM ${parquet(dir, 'run_result')} ORDER BY ALL`);
    expect(got).toEqual(expected);
    const again = await exportDataset(store.db, backendFor(dir), { project: null, forgotten: new Set() });
    expect(again).toMatchObject({ written: 0, deleted: 0, unchanged: first.written });
  });

  it('keeps each table row for row, partitioned by project and day', async () => {
    const dir = path.join(root, 'tables');
    await exportDataset(store.db, backendFor(dir), { project: 'learn', forgotten: new Set() });
    const pairs: [string, string][] = [
      ['SELECT invocation_id, command, invoked_at FROM v_invocation_sequence', 'SELECT invocation_id, command, invoked_at FROM TABLE'],
      ['SELECT unique_id, to_invocation, change_kind FROM v_node_changes', 'SELECT unique_id, to_invocation, change_kind FROM TABLE'],
      ['SELECT node_version_id, raw_code FROM node_version', 'SELECT node_version_id, raw_code FROM TABLE'],
      [`SELECT ${KEY('node_version_id')} AS node_version_key, depends_on_id FROM node_version_edge`, 'SELECT node_version_key, depends_on_id FROM TABLE'],
    ];
    for (const [table, [fromStore, fromDataset]] of ['invocation', 'node_change', 'node_version', 'edge'].map((t, i) => [t, pairs[i]!] as const)) {
      const got = await store.query(`${fromDataset.replace('TABLE', parquet(dir, table))} ORDER BY ALL`);
      expect(got, table).toEqual(await store.query(`${fromStore} ORDER BY ALL`));
    }
    const projects = await store.query(`SELECT DISTINCT project FROM ${parquet(dir, 'invocation')}`);
    expect(projects).toEqual([{ project: 'learn' }]);
  });

  it('names a node version by a key that joins each run result to the version it ran', async () => {
    const dir = path.join(root, 'keys');
    await exportDataset(store.db, backendFor(dir), { project: null, forgotten: new Set() });
    const versions = await store.query(`SELECT node_version_key, node_version_id FROM ${parquet(dir, 'node_version')}`);
    expect(versions.length).toBeGreaterThan(0);
    expect(versions.every((v) => String(v.node_version_key) === BigInt(`0x${String(v.node_version_id).slice(0, 15)}`).toString())).toBe(true);
    const got = await store.query(`SELECT r.invocation_id, r.unique_id, v.node_version_id FROM ${parquet(dir, 'run_result')} AS r
      LEFT JOIN ${parquet(dir, 'node_version')} AS v ON v.node_version_key = r.node_version_key AND v.project = r.project ORDER BY ALL`);
    expect(got).toEqual(await store.query('SELECT invocation_id, unique_id, node_version_id FROM v_run_history ORDER BY ALL'));
  });

  it('two exporters racing write one file per table and invocation', async () => {
    const dir = path.join(root, 'race');
    const other = { ...store.db, connection: await store.db.connect() };
    const [a, b] = await Promise.all([
      exportDataset(store.db, backendFor(dir), { project: null, forgotten: new Set() }),
      exportDataset(other, backendFor(dir), { project: null, forgotten: new Set() }),
    ]);
    expect(a.written).toBe(b.written);
    const rows = await store.query(`SELECT count(*) AS n, count(DISTINCT (invocation_id, unique_id)) AS d FROM ${parquet(dir, 'run_result')}`);
    expect(rows[0]!.n).toBe(rows[0]!.d);
    expect(rows[0]!.n).toBe((await store.query('SELECT count(*) AS n FROM run_history'))[0]!.n);
  });

  it('removes the files of a forgotten invocation, and only those', async () => {
    const dir = path.join(root, 'forget');
    const [{ invocation_id: gone }] = (await store.query('SELECT invocation_id FROM run_history LIMIT 1')) as [{ invocation_id: string }];
    await exportDataset(store.db, backendFor(dir), { project: null, forgotten: new Set() });
    const after = await exportDataset(store.db, backendFor(dir), { project: null, forgotten: new Set([gone]) });
    expect(after).toMatchObject({ written: 0 });
    expect(after.deleted).toBeGreaterThan(0);
    const got = await store.query(`SELECT invocation_id, unique_id FROM ${parquet(dir, 'run_result')} ORDER BY ALL`);
    expect(got).toEqual(await store.query(`SELECT invocation_id, unique_id FROM run_history WHERE invocation_id <> '${gone}' ORDER BY ALL`));
  });

  it('moves an invocation to the partition its project is now named by, leaving no copy behind', async () => {
    const dir = path.join(root, 'renamed');
    await exportDataset(store.db, backendFor(dir), { project: null, forgotten: new Set() });
    const [{ project_name: name }] = (await store.query('SELECT project_name FROM invocation WHERE project_name IS NOT NULL LIMIT 1')) as [
      { project_name: string },
    ];
    const moved = await exportDataset(store.db, backendFor(dir), { project: `${name}-0123abcd`, forgotten: new Set() });
    expect(moved.deleted).toBe(moved.written);
    const rows = await store.query(`SELECT count(*) AS n FROM ${parquet(dir, 'run_result')}`);
    expect(rows).toEqual(await store.query('SELECT count(*) AS n FROM run_history'));
  });
});

/**
 * rembo's twelve runs, some captured without their manifest (so the store knows no project name
 * for them): each goes to its neighbours' project, not to a partition of its own.
 */
describe.skipIf(!hasCorpus)('exportDataset: runs that name no project', () => {
  let store: CorpusStore;
  let root: string;
  beforeAll(async () => {
    const seq = path.join(CORPUS_DIR, 'rembo-dbt-prod', 'target-seq');
    store = await buildCorpusStore(
      readdirSync(seq)
        .sort()
        .map((d) => path.join(seq, d)),
    );
    root = mkdtempSync(path.join(os.tmpdir(), 'attic-export-'));
  }, 120_000);
  afterAll(() => {
    store?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('files them with the project of the run before (or after) them', async () => {
    const nameless = await store.query('SELECT count(*) AS n FROM invocation WHERE project_name IS NULL');
    expect(Number(nameless[0]!.n)).toBeGreaterThan(0);
    const report = await exportDataset(store.db, backendFor(root), { project: null, forgotten: new Set() });
    expect(report.projects).toEqual(['dbt_prod']);
    const got = await store.query(
      `SELECT DISTINCT project, invocation_id FROM read_parquet('${root}/invocation/**/*.parquet', hive_partitioning = true) ORDER BY ALL`,
    );
    expect(got).toEqual((await store.query('SELECT invocation_id FROM invocation ORDER BY ALL')).map((r) => ({ project: 'dbt_prod', ...r })));
  });
});
