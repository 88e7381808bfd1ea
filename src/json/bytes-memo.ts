/**
 * A value worked out from a large document's bytes, kept with those bytes: capture reads an
 * artifact (checks it whole, summarises its results), then ingest in the same process reads the
 * same bytes again, through another view of them, hence the key on the underlying memory.
 * Small buffers can share pooled memory, and are cheap to read again: they are not kept.
 */
const KEPT_BYTES = 1 << 20;

export class BytesMemo<T> {
  private readonly held = new WeakMap<ArrayBufferLike, { offset: number; length: number; value: T }>();

  get(buf: Uint8Array): T | undefined {
    const held = buf.length >= KEPT_BYTES ? this.held.get(buf.buffer) : undefined;
    return held && held.offset === buf.byteOffset && held.length === buf.length ? held.value : undefined;
  }

  set(buf: Uint8Array, value: T): void {
    if (buf.length >= KEPT_BYTES) this.held.set(buf.buffer, { offset: buf.byteOffset, length: buf.length, value });
  }
}
