import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCorpusTarget, hasCorpus } from '../../helpers/corpus.js';
import { buildCorpusStore, type CorpusStore } from '../../helpers/corpus-store.js';

/**
 * Unit tests (dbt 1.8+, the manifest's `unit_tests`) get a fingerprint and their changes are
 * classified like any node's. No corpus sequence edits a unit test, so a real manifest with
 * unit tests is taken as it is, then written again as dbt would after an edit of one test's
 * `expect` rows (and the checksum dbt derives from them), then after an edit of its description.
 */
// biome-ignore lint/suspicious/noExplicitAny: artifact JSON walked by hand; its fields are what dbt wrote
type Doc = Record<string, any>;

let store: CorpusStore;
let root: string;
let manifests: Doc[];
let edited: string;

const sample = findCorpusTarget('a manifest with unit tests', (files) => {
  const file = files.get('manifest.json');
  return file !== undefined && Object.keys((JSON.parse(readFileSync(file, 'utf8')) as Doc).unit_tests ?? {}).length > 0;
});

function step(base: Doc, n: number, edit: (tests: Doc) => void): Doc {
  const doc = structuredClone(base);
  doc.metadata.invocation_id = `unit-test-step-${n}`;
  doc.metadata.generated_at = `2026-01-0${n}T00:00:00.000000Z`;
  edit(doc.unit_tests);
  return doc;
}

describe.skipIf(!hasCorpus)('a unit test edited between two manifests', () => {
  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'attic-unit-tests-'));
    const base = JSON.parse(readFileSync(path.join(sample!, 'manifest.json'), 'utf8')) as Doc;
    edited = Object.keys(base.unit_tests).sort()[0]!;
    const first = step(base, 1, () => {});
    const second = step(base, 2, (tests) => {
      const rows = tests[edited].expect.rows as Doc[];
      const [key] = Object.keys(rows[0]!);
      rows[0]![key!] = `${String(rows[0]![key!])}-edited`;
      tests[edited].checksum = `edited-${String(tests[edited].checksum)}`;
    });
    const third = step(second, 3, (tests) => {
      tests[edited].description = 'Described anew.';
    });
    manifests = [first, second, third];
    const dirs = manifests.map((doc, i) => {
      const dir = path.join(root, `step-${i + 1}`);
      mkdirSync(dir);
      writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(doc));
      return dir;
    });
    store = await buildCorpusStore(dirs);
  });
  afterAll(() => {
    store?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('gives every unit test a fingerprint', async () => {
    const rows = await store.query(
      "SELECT count(*) AS n, count(fingerprint) AS fingerprinted FROM node_invocation WHERE invocation_id = 'unit-test-step-1' AND unique_id LIKE 'unit_test.%'",
    );
    const count = Object.keys(manifests[0]!.unit_tests).length;
    expect(rows).toEqual([{ n: count, fingerprinted: count }]);
  });

  it('classifies an edit of the expected rows as semantic, and a new description as docs', async () => {
    const rows = await store.query('SELECT to_invocation, change_kind, what_changed FROM v_node_changes WHERE unique_id = $1 ORDER BY to_seq', [edited]);
    expect(rows).toEqual([
      { to_invocation: 'unit-test-step-2', change_kind: 'semantic', what_changed: ['checksum', 'fingerprint'] },
      { to_invocation: 'unit-test-step-3', change_kind: 'docs', what_changed: ['description'] },
    ]);
    expect(await store.diffNodes('unit-test-step-1', 'unit-test-step-2')).toEqual([
      { unique_id: edited, resource_type: 'unit_test', change: 'semantic', aspects: ['checksum', 'fingerprint'] },
    ]);
  });

  it('reports no other node as changed', async () => {
    expect(await store.query("SELECT DISTINCT unique_id FROM v_node_changes WHERE change_kind NOT IN ('added', 'removed')")).toEqual([{ unique_id: edited }]);
  });
});
