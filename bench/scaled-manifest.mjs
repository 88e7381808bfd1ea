// The benchmarks' large manifests: a real one from the corpus, grown by
// fixtures/scale-manifest.mjs (replicated nodes under new unique_ids).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeScaledManifest as scale } from '../fixtures/scale-manifest.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const CORPUS = process.env.DBTATTIC_CORPUS ?? path.resolve(here, '../../shared/corpus');
const SEED = 'typedef-medallion-snowflake-1.10.13/target-seq/01_2025-11-04_fa6a74d3/manifest.json';

/** The manifest to grow: a real one (named in the output) when the corpus is here. */
export function seedManifest(seed = SEED) {
  const file = path.join(CORPUS, seed);
  if (existsSync(file)) return { file, label: `corpus ${seed}` };
  throw new Error(`benchmarks need the corpus at ${CORPUS} (set DBTATTIC_CORPUS)`);
}

/** The seed grown by fixtures/scale-manifest.mjs; the options are that function's. */
export async function writeScaledManifest(out, targetBytes, options = {}) {
  return scale(out, targetBytes, JSON.parse(readFileSync(seedManifest().file, 'utf8')), options);
}
