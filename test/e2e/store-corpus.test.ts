import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FsBackend } from '../../src/archive/backends/fs.js';
import { MemBackend } from '../../src/archive/backends/mem.js';
import type { Backend } from '../../src/archive/index.js';
import { openDatabase, syncStore } from '../../src/store/index.js';
import { countArtifactRows, STORE_COUNTS, type RowCounts } from '../helpers/artifact-row-counts.js';
import { hasCorpus } from '../helpers/corpus.js';
import { captureWholeCorpus } from '../helpers/corpus-capture.js';

/**
 * The acceptance sweep of the store: every corpus artifact goes into one archive, the store is
 * derived from it, and for each invocation the store holds as many rows of each kind as the
 * artifact JSON says (counted independently, see artifact-row-counts.ts). In-process for speed,
 * on each backend: the directory users have, and the in-memory one.
 */
interface Filed {
  file: string;
  artifact: string;
  invocationId: string;
  sha: string;
  generatedAt: string;
  order: number;
}

/** The store keeps an invocation's newest copy of each artifact: generated_at, then the later capture. */
function newer(a: Filed, b: Filed): boolean {
  if (a.generatedAt !== b.generatedAt) return a.generatedAt > b.generatedAt;
  return a.order !== b.order ? a.order > b.order : a.sha > b.sha;
}

function generatedAtOf(doc: Record<string, unknown>): string {
  const metadata = (doc.metadata ?? {}) as { generated_at?: unknown };
  const at = metadata.generated_at ?? doc.generated_at;
  return typeof at === 'string' ? at : '';
}

/** The keys schema/001-tables.sql states for tables that do not declare them. */
const GRAINS: Record<string, string> = {
  artifact_capture: 'invocation_id, artifact_type, object_id',
  node_invocation: 'invocation_id, node_version_id',
  node_depends_on: 'invocation_id, unique_id, depends_on_id, kind',
  macro_invocation: 'invocation_id, unique_id',
  run_result: 'invocation_id, unique_id',
  source_freshness: 'invocation_id, unique_id',
  catalog_table: 'invocation_id, unique_id',
  catalog_column: 'invocation_id, unique_id, column_name',
  semantic_definition: 'invocation_id, kind, name',
};

/**
 * The in-memory archive takes the whole corpus in the slow lane only (DBTATTIC_TEST_FULL=1,
 * `npm run test:full`): each sweep costs a minute of the suite's two cores, and the backend
 * contract suite (test/contract/backend.test.ts) holds every backend to the same behaviour.
 */
const BACKENDS: { name: string; open: (root: string) => Backend }[] = [
  { name: 'filesystem', open: (root) => new FsBackend(path.join(root, 'archive')) },
  ...(process.env.DBTATTIC_TEST_FULL === '1' ? [{ name: 'in-memory', open: () => new MemBackend() }] : []),
];

describe.skipIf(!hasCorpus).each(BACKENDS)('the store derived from the whole corpus ($name archive)', ({ open }) => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'attic-store-corpus-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('holds, per invocation, the rows its newest artifacts describe, and no ingest problem', async () => {
    const backend = open(root);
    const filed: Filed[] = [];
    for (const { order, artifact: a } of await captureWholeCorpus(backend)) {
      const doc = JSON.parse(readFileSync(a.path, 'utf8')) as Record<string, unknown>;
      filed.push({ file: a.path, artifact: a.artifact, invocationId: a.invocation_id!, sha: a.sha256!, generatedAt: generatedAtOf(doc), order });
    }
    const newest = new Map<string, Filed>();
    for (const f of filed) {
      const key = `${f.invocationId} ${f.artifact}`;
      const held = newest.get(key);
      if (!held || newer(f, held)) newest.set(key, f);
    }
    expect(newest.size).toBeLessThan(filed.length); // the sweep meets an artifact written twice in one invocation

    const expected: Record<string, RowCounts> = {};
    for (const f of newest.values()) {
      const counts = countArtifactRows(f.artifact, JSON.parse(readFileSync(f.file, 'utf8')) as Record<string, unknown>);
      expected[f.invocationId] = { ...expected[f.invocationId], ...counts };
    }

    const file = path.join(root, 'store.duckdb');
    const report = await syncStore(backend, file, 'wait');
    expect(report).toMatchObject({ status: 'synced', problems: [] });

    const db = await openDatabase(file, 'read');
    try {
      const rows = async (sql: string): Promise<Record<string, unknown>[]> => (await db.connection.runAndReadAll(sql)).getRowObjectsJson();
      expect(await rows('SELECT * FROM ingest_problem')).toEqual([]);
      const invocations = (await rows('SELECT invocation_id FROM invocation ORDER BY 1')).map((r) => r.invocation_id);
      expect(invocations).toEqual([...new Set(filed.map((f) => f.invocationId))].sort());
      const records = new Set(filed.map((f) => `${f.invocationId} ${f.artifact} ${f.sha}`));
      expect(Number((await rows('SELECT count(*) AS n FROM artifact_capture'))[0]!.n)).toBe(records.size);

      const actual: Record<string, RowCounts> = {};
      for (const row of await rows(STORE_COUNTS)) {
        const id = String(row.invocation_id);
        actual[id] = { ...actual[id], [String(row.key)]: Number(row.n) };
      }
      const sorted = (counts: Record<string, RowCounts>) =>
        Object.fromEntries(
          Object.entries(counts)
            .filter(([, c]) => Object.keys(c).length > 0)
            .sort(),
        );
      expect(sorted(actual)).toEqual(sorted(expected));

      for (const [table, key] of Object.entries(GRAINS)) {
        const repeated = await rows(`SELECT ${key}, count(*) AS n FROM ${table} GROUP BY ALL HAVING count(*) > 1 LIMIT 5`);
        expect(repeated, `${table} repeats its key (${key})`).toEqual([]);
      }
    } finally {
      db.close();
    }
  }, 480_000);
});
