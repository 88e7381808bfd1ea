import { recordsOf, type Backend } from '../archive/index.js';
import { LiveSet } from './mark.js';
import { planSweep } from './prune.js';

/**
 * What forgetting `ids` and then pruning would free: the records forget removes, and the
 * objects that only those records needed (once older than prune's grace period).
 */
export interface Shrink {
  records: number;
  recordBytes: number;
  files: number;
  chunks: number;
  objectBytes: number;
  bytes: number;
}

export async function predictShrink(backend: Backend, ids: readonly string[]): Promise<Shrink> {
  const forgotten = new Set(ids);
  const records = await recordsOf(backend, forgotten);
  const live = new LiveSet(backend);
  await live.markRecords((id) => forgotten.has(id));
  const sweep = await planSweep(backend, live, Number.POSITIVE_INFINITY);
  const objectBytes = [...sweep.files, ...sweep.chunks].reduce((sum, k) => sum + k.size, 0);
  return {
    records: records.keys.length,
    recordBytes: records.bytes,
    files: sweep.files.length,
    chunks: sweep.chunks.length,
    objectBytes,
    bytes: records.bytes + objectBytes,
  };
}
