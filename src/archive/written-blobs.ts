import type { ObjectId } from '../vocab/index.js';

/**
 * The bytes of the blobs this process wrote, kept a while so that whoever reads one next in the
 * same process (ingest, right after a capture) is handed them instead of reading the archive:
 * gunzipping and hashing every chunk of a 60 MB manifest it holds anyway cost about a tenth of
 * a capture. Content addressing makes that exact: an id names one sequence of bytes, whatever
 * archive holds it. Bounded, oldest out first, and let go when a command ends, so a long-lived
 * process (`mcp`, a test calling commands in-process) never piles up what it captured, nor hands a
 * later command bytes that the archive has lost since.
 */
const KEPT_BYTES = 1 << 30;

const kept = new Map<ObjectId, Uint8Array>();
let keptBytes = 0;

/** Remembers the bytes of a blob just written (or found already written) under `id`. */
export function keepWrittenBlob(id: ObjectId, bytes: Uint8Array): void {
  if (bytes.length > KEPT_BYTES || kept.has(id)) return;
  kept.set(id, bytes);
  keptBytes += bytes.length;
  for (const [oldest, held] of kept) {
    if (keptBytes <= KEPT_BYTES) break;
    kept.delete(oldest);
    keptBytes -= held.length;
  }
}

/** The bytes of a blob this process wrote, if it still holds them. */
export function writtenBlob(id: ObjectId): Uint8Array | undefined {
  return kept.get(id);
}

/** Lets go of every blob kept: the command that wrote them is over. */
export function forgetWrittenBlobs(): void {
  kept.clear();
  keptBytes = 0;
}
