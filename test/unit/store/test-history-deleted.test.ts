import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enabledNodes, readJson } from '../../helpers/artifact-facts.js';
import { CORPUS_DIR, hasCorpus } from '../../helpers/corpus.js';
import { buildCorpusStore, type CorpusStore } from '../../helpers/corpus-store.js';

/**
 * Issue 44, item 2: v_test_history listed tests that exist only in a manifest of years ago (the
 * project was renamed since) in state error, and the report showed them as failing now. Here a
 * coffee_shop `dbt test` that left a test in error, then learn_dbt's eight captures on the same
 * branch, whose own `dbt test` of May 2022 ran twelve tests its newest manifest no longer has:
 * `deleted` must say, for every test, whether the newest manifest lacks it.
 */
const dirs = (): string[] => {
  const renamed = path.join(CORPUS_DIR, 'learn-dbt-nigel-snowflake-1.0-to-1.3', 'target-seq');
  return [
    path.join(CORPUS_DIR, 'aec-hannah-bq-1.0.3', 'target-seq', '01_2022-03-01_18f38be0'),
    ...readdirSync(renamed)
      .sort()
      .map((d) => path.join(renamed, d)),
  ];
};

describe.skipIf(!hasCorpus)('v_test_history.deleted', () => {
  let store: CorpusStore;
  beforeAll(async () => {
    store = await buildCorpusStore(dirs());
  }, 120_000);
  afterAll(() => store?.close());

  it('is true exactly for the tests the newest manifest of their branch and target does not hold', async () => {
    const newest = enabledNodes(
      readJson(
        path.join(
          dirs()
            .filter((d) => existsSync(path.join(d, 'manifest.json')))
            .at(-1)!,
          'manifest.json',
        ),
      ),
    );
    const ran = new Map<string, string>();
    for (const dir of dirs()) {
      if (!existsSync(path.join(dir, 'run_results.json'))) continue;
      for (const r of (readJson(path.join(dir, 'run_results.json')).results ?? []) as { unique_id: string; status: string }[]) {
        if (r.unique_id.startsWith('test.')) ran.set(r.unique_id, r.status);
      }
    }
    const expected = Object.fromEntries([...ran.keys()].sort().map((id) => [id, !newest.has(id)]));
    expect(Object.values(expected).filter(Boolean).length).toBeGreaterThanOrEqual(13);
    expect(Object.values(expected).filter((d) => !d).length).toBeGreaterThan(0);
    const rows = await store.query('SELECT unique_id, deleted FROM v_test_history ORDER BY unique_id');
    expect(Object.fromEntries(rows.map((r) => [r.unique_id, r.deleted]))).toEqual(expected);
  });

  it('keeps the history of a deleted test: its error is still counted', async () => {
    const [row] = await store.query(
      "SELECT errors, last_status, deleted FROM v_test_history WHERE unique_id LIKE 'test.coffee_shop.accepted_values_monthly_customers%'",
    );
    expect(row).toEqual({ errors: 1, last_status: 'error', deleted: true });
  });
});
