import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CORPUS_DIR, hasCorpus } from './corpus.js';
import { syntheticManifest } from './synthetic-artifacts.js';

/**
 * A large manifest for fault tests: the corpus has none over a few MB, so a real one is scaled
 * up by replicating its nodes under new unique_ids (the copies are ours, not dbt's). Without the
 * corpus the seed is a synthetic manifest.
 */
export const SEED_MANIFEST = path.join(CORPUS_DIR, 'typedef-medallion-snowflake-1.10.13/target-seq/01_2025-11-04_fa6a74d3/manifest.json');

interface Seed {
  metadata: Record<string, unknown>;
  nodes: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

function readSeed(): Seed {
  if (hasCorpus) return JSON.parse(readFileSync(SEED_MANIFEST, 'utf8')) as Seed;
  const statuses = Array.from({ length: 200 }, () => 'success');
  return JSON.parse(syntheticManifest({ invocationId: 'scaled-synthetic-0000', statuses })) as Seed;
}

/**
 * Writes a manifest of at least `targetBytes` to `file`, under `invocationId`; returns its size.
 * Each copy's unique_id carries its number, so the copies do not collapse into shared chunks.
 */
export function writeScaledManifest(file: string, targetBytes: number, invocationId: string): number {
  const seed = readSeed();
  const nodes = Object.entries(seed.nodes);
  const parts: string[] = [`{"metadata": ${JSON.stringify({ ...seed.metadata, invocation_id: invocationId })}, "nodes": {`];
  let size = 0;
  for (let copy = 0; size < targetBytes; copy++) {
    for (const [id, node] of nodes) {
      const uniqueId = copy === 0 ? id : `${id}_copy${copy}`;
      const part = `${parts.length > 1 ? ', ' : ''}${JSON.stringify(uniqueId)}: ${JSON.stringify({ ...node, unique_id: uniqueId })}`;
      parts.push(part);
      size += part.length;
    }
  }
  parts.push('}');
  for (const [key, value] of Object.entries(seed)) {
    if (key !== 'metadata' && key !== 'nodes') parts.push(`, ${JSON.stringify(key)}: ${JSON.stringify(value)}`);
  }
  parts.push('}');
  const bytes = Buffer.from(parts.join(''));
  writeFileSync(file, bytes);
  return bytes.length;
}
