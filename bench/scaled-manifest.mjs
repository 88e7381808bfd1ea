// Builds a large manifest for benchmarks by replicating the nodes of a real one from the corpus
// (or of our synthetic fixture when the corpus is absent) under new unique_ids. It is written
// member by member, so it can exceed what one JSON.stringify could hold.
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const CORPUS = process.env.DBTATTIC_CORPUS ?? path.resolve(here, '../../shared/corpus');
const SEED = 'typedef-medallion-snowflake-1.10.13/target-seq/01_2025-11-04_fa6a74d3/manifest.json';

/** The manifest to grow: a real one (named in the output) when the corpus is here. */
export function seedManifest() {
  const file = path.join(CORPUS, SEED);
  if (existsSync(file)) return { file, label: `corpus ${SEED}` };
  throw new Error(`benchmarks need the corpus at ${CORPUS} (set DBTATTIC_CORPUS)`);
}

/**
 * Writes a manifest of about `targetBytes` to `out`. `tweak(copy, node)` may change one node;
 * `metadata` overrides metadata fields (invocation_id, generated_at).
 */
export async function writeScaledManifest(out, targetBytes, { metadata = {}, tweak } = {}) {
  const seed = JSON.parse(readFileSync(seedManifest().file, 'utf8'));
  const nodes = Object.entries(seed.nodes);
  const nodeBytes = Buffer.byteLength(JSON.stringify(seed.nodes));
  const copies = Math.max(1, Math.ceil(targetBytes / nodeBytes));
  const stream = createWriteStream(out);
  const write = (text) => new Promise((resolve) => (stream.write(text) ? resolve() : stream.once('drain', resolve)));
  await write(`{"metadata": ${JSON.stringify({ ...seed.metadata, ...metadata })}, "nodes": {`);
  let first = true;
  for (let copy = 0; copy < copies; copy++) {
    for (const [id, node] of nodes) {
      const uniqueId = copy === 0 ? id : `${id}_x${copy}`;
      const value = tweak ? tweak(copy, { ...node, unique_id: uniqueId }) : { ...node, unique_id: uniqueId };
      await write(`${first ? '' : ', '}${JSON.stringify(uniqueId)}: ${JSON.stringify(value)}`);
      first = false;
    }
  }
  await write('}');
  for (const [key, value] of Object.entries(seed)) {
    if (key !== 'metadata' && key !== 'nodes') await write(`, ${JSON.stringify(key)}: ${JSON.stringify(value)}`);
  }
  await write('}');
  await new Promise((resolve, reject) => stream.end((error) => (error ? reject(error) : resolve())));
  return { copies, nodes: copies * nodes.length };
}
