import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractManifest, extractRunResults } from '../../../src/extract/index.js';
import { CORPUS_DIR, hasCorpus } from '../../helpers/corpus.js';

/**
 * A manifest's metadata.invocation_started_at is not when its invocation started: a partial
 * parse keeps the metadata of the parse that made its cache, with a new invocation_id and
 * generated_at. In these corpus directories the manifest and the run results are one
 * invocation's, and the manifest's "start" is minutes to hours before run_results' (read from
 * the JSON here). A real dbt 1.12 does it too (test/e2e/real-dbt-signals.test.ts: a SIGTERM run,
 * which leaves only its manifest, was dated at the run before it).
 */
const STALE = [
  'recce-super-demo/target-base-seq/01_fe23c9a29a',
  'dbt-bouncer/dbt_project-seq-2026-06-04/04_f52fa9af',
  'crypto-analytics-pg/target-seq/01_2026-06-26_170950d1',
];

describe.skipIf(!hasCorpus)("a manifest's invocation_started_at", () => {
  it.each(STALE)('is not taken as the start of %s: run_results says when it started, and a manifest alone says nothing', (dir) => {
    const manifestBytes = readFileSync(path.join(CORPUS_DIR, dir, 'manifest.json'));
    const resultsBytes = readFileSync(path.join(CORPUS_DIR, dir, 'run_results.json'));
    const manifestMeta = (JSON.parse(manifestBytes.toString('utf8')) as { metadata: Record<string, string> }).metadata;
    const resultsMeta = (JSON.parse(resultsBytes.toString('utf8')) as { metadata: Record<string, string> }).metadata;
    expect(manifestMeta.invocation_id).toBe(resultsMeta.invocation_id);
    const staleBy = Date.parse(resultsMeta.invocation_started_at!) - Date.parse(manifestMeta.invocation_started_at!);
    expect(staleBy).toBeGreaterThan(60_000);

    expect(extractManifest(manifestBytes).invocation.started_at).toBeNull();
    expect(Date.parse(extractRunResults(resultsBytes).invocation.started_at!)).toBe(Date.parse(resultsMeta.invocation_started_at!));
  });
});
