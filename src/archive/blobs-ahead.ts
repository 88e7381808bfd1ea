import type { Backend } from './backend.js';
import { readBlob, recallBlob } from './objects.js';
import { writtenBlob } from './written-blobs.js';
import type { ObjectId } from '../vocab/index.js';

/**
 * Blobs read before they are asked for: a catch-up of many invocations (a rebuild, a fresh
 * runner) starts reading the next invocation's artifacts while it derives rows from this one's.
 * The files, brotli and the hashing of chunks then wait on the disk and the thread pool while
 * the main thread and DuckDB are busy with the invocation before. Each read is handed over once.
 */
export class BlobsAhead {
  readonly #backend: Backend;
  readonly #pending = new Map<ObjectId, Promise<Buffer>>();

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  /** Starts reading `ids`; a failure surfaces only when the blob is recalled. */
  start(ids: Iterable<ObjectId>): void {
    for (const id of ids) {
      if (this.#pending.has(id) || writtenBlob(id)) continue;
      const reading = readBlob(this.#backend, id);
      reading.catch(() => undefined);
      this.#pending.set(id, reading);
    }
  }

  /** The bytes of a blob: the read started ahead, else as recallBlob has them. */
  recall(id: ObjectId): Promise<Buffer> {
    const reading = this.#pending.get(id);
    if (!reading) return recallBlob(this.#backend, id);
    this.#pending.delete(id);
    return reading;
  }

  /** Drops reads nobody recalled (their invocation was left out), so their bytes can go. */
  forget(): void {
    this.#pending.clear();
  }
}
