import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { CORPUS_DIR, hasCorpus } from '../helpers/corpus.js';
import { buildCorpusStoreDir } from '../helpers/corpus-store.js';
import { announceS3Skip, makeBucket, openTestS3Backend, s3Available, s3Env } from '../helpers/s3.js';

/**
 * `dbtattic export --to s3://…` on a real S3 (the tests' Ceph RGW): learn_dbt's history exported
 * to a directory and to a bucket gives the same keys, and the files downloaded from the bucket
 * read (DuckDB's read_parquet, Hive partitions) as the directory's do; a second export to the
 * bucket writes nothing. Through the CLI, as a user would, with the AWS variables of the server.
 */
announceS3Skip('dbtattic export to s3://');

const parquet = (dir: string, table: string) => `read_parquet('${dir}/${table}/**/*.parquet', hive_partitioning = true)`;

describe.skipIf(!s3Available || !hasCorpus)('dbtattic export to S3', () => {
  let root: string;
  let store: string;
  let uri: string;
  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'attic-export-s3-'));
    store = path.join(root, 'store');
    mkdirSync(store);
    const seq = path.join(CORPUS_DIR, 'learn-dbt-nigel-snowflake-1.0-to-1.3', 'target-seq');
    await buildCorpusStoreDir(
      store,
      readdirSync(seq)
        .sort()
        .map((d) => path.join(seq, d)),
    );
    uri = `s3://${await makeBucket()}/dbt/history`;
  }, 120_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const attic = async <T>(args: string[]): Promise<T> => {
    const probe = await runCli([...args, '--json'], { cwd: root, env: { DBTATTIC_STORE: store, ...s3Env() } });
    expect(probe.exitCode, probe.stderr).toBe(0);
    return JSON.parse(probe.stdout) as T;
  };

  it('writes the keys and rows a directory gets, and nothing the second time', async () => {
    const local = path.join(root, 'local');
    const first = await attic<{ written: number; bytes: number }>(['export', '--to', uri]);
    const inDir = await attic<{ written: number; bytes: number }>(['export', '--to', local]);
    expect(first.written).toBeGreaterThan(0);
    expect(first).toMatchObject({ written: inDir.written, bytes: inDir.bytes });

    const bucket = await openTestS3Backend(uri);
    const keys = (await bucket.list('')).map((k) => k.key).sort();
    const localKeys = readdirSync(local, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => path.relative(local, path.join(e.parentPath, e.name)))
      .sort();
    expect(keys).toEqual(localKeys);

    const downloaded = path.join(root, 'downloaded');
    for (const key of keys) {
      mkdirSync(path.dirname(path.join(downloaded, key)), { recursive: true });
      writeFileSync(path.join(downloaded, key), (await bucket.get(key))!);
    }
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const connection = await (await DuckDBInstance.create(':memory:')).connect();
    const rows = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJson();
    for (const table of ['invocation', 'run_result', 'test_result', 'node_change', 'node_version', 'edge']) {
      const read = (dir: string) => rows(`SELECT * FROM ${parquet(dir, table)} ORDER BY ALL`);
      expect(await read(downloaded), table).toEqual(await read(local));
    }
    connection.closeSync();

    const again = await attic<{ written: number; deleted: number; unchanged: number }>(['export', '--to', uri]);
    expect(again).toMatchObject({ written: 0, deleted: 0, unchanged: first.written });
    expect((await bucket.list('')).map((k) => k.key).sort()).toEqual(keys);
  });
});
