import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

/**
 * Outputs (SQL trees, log slices) read from an archive directory as docs/archive-format.md
 * lays them out, without dbtattic's reader: chunks and file indexes by hand, trees with their
 * delta chain applied by hand.
 */
export interface OutputRecordJson {
  output: 'sql' | 'log';
  invocation_id: string;
  sha256: string;
  size: number;
  entries: number;
}

export function readOutputRecordFiles(archiveDir: string, invocationId: string): OutputRecordJson[] {
  const dir = path.join(archiveDir, 'records', 'outputs', encodeURIComponent(invocationId));
  if (!existsSync(dir)) return [];
  return readdirSync(dir).map((name) => JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as OutputRecordJson);
}

const fanned = (id: string): string => `${id.slice(0, 2)}/${id.slice(2)}`;

/** A chunk as README says: gzip when it starts with gzip's magic bytes, else brotli (format 2). */
function inflateChunk(stored: Buffer): Buffer {
  return stored[0] === 0x1f && stored[1] === 0x8b ? gunzipSync(stored) : brotliDecompressSync(stored);
}

export function restoreBlob(archiveDir: string, id: string): Buffer {
  const index = JSON.parse(gunzipSync(readFileSync(path.join(archiveDir, 'files', fanned(id)))).toString('utf8')) as { chunks: [string, number][] };
  return Buffer.concat(index.chunks.map(([chunk]) => inflateChunk(readFileSync(path.join(archiveDir, 'chunks', fanned(chunk))))));
}

/** path → blob id of a SQL tree, its bases applied first. */
export function restoreTree(archiveDir: string, id: string): Map<string, string> {
  const doc = JSON.parse(restoreBlob(archiveDir, id).toString('utf8')) as { base: string | null; files: Record<string, [string, number]>; removed: string[] };
  const files = doc.base ? restoreTree(archiveDir, doc.base) : new Map<string, string>();
  for (const p of doc.removed) files.delete(p);
  for (const [p, [blob]] of Object.entries(doc.files)) files.set(p, blob);
  return files;
}

/**
 * The record that counts: an invocation's one SQL tree (tests capture each once); of its log
 * slices the largest (a later capture can find its head rotated away, and files what is left).
 */
export function onlyOutput(records: OutputRecordJson[], output: 'sql' | 'log'): OutputRecordJson {
  const mine = records.filter((r) => r.output === output).sort((a, b) => b.size - a.size);
  if (mine.length === 0 || (output === 'sql' && mine.length > 1)) throw new Error(`expected one ${output} output, got ${JSON.stringify(records)}`);
  return mine[0]!;
}
