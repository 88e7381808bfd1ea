import { readFileSync, statSync } from 'node:fs';
import { writeScaledManifest as scale, type SeedManifest } from '../../fixtures/scale-manifest.mjs';
import path from 'node:path';
import { CORPUS_DIR, hasCorpus } from './corpus.js';
import { syntheticManifest } from './synthetic-artifacts.js';

/**
 * A large manifest for fault tests: the corpus has none over a few MB, so a real one is scaled
 * up by replicating its nodes under new unique_ids (the copies are ours, not dbt's). Without the
 * corpus the seed is a synthetic manifest.
 */
export const SEED_MANIFEST = path.join(CORPUS_DIR, 'typedef-medallion-snowflake-1.10.13/target-seq/01_2025-11-04_fa6a74d3/manifest.json');

function readSeed(): SeedManifest {
  if (hasCorpus) return JSON.parse(readFileSync(SEED_MANIFEST, 'utf8')) as SeedManifest;
  const statuses = Array.from({ length: 200 }, () => 'success');
  return JSON.parse(syntheticManifest({ invocationId: 'scaled-synthetic-0000', statuses })) as SeedManifest;
}

/** Writes a manifest of about `targetBytes` to `file`, under `invocationId`; returns its size. */
export async function writeScaledManifest(file: string, targetBytes: number, invocationId: string): Promise<number> {
  await scale(file, targetBytes, readSeed(), { metadata: { invocation_id: invocationId } });
  return statSync(file).size;
}
