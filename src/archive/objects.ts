import { promisify } from 'node:util';
import { brotliCompress as brotliCb, brotliDecompress as unbrotliCb, constants as zlibConstants, gunzip as gunzipCb, gzip as gzipCb } from 'node:zlib';
import { AtticError } from '../errors.js';
import { sha256, type ObjectId } from '../vocab/index.js';
import type { Backend } from './backend.js';
import { archiveFormatOn } from './archive-format.js';
import { CHUNKINGS, MAX_CHUNK, splitChunks, type Chunking } from './chunking.js';
import { chunkKey, fileKey } from './layout.js';
import { forEachLimited } from '../vocab/parallel.js';
import { keepWrittenBlob, writtenBlob } from './written-blobs.js';

const gzip = promisify(gzipCb);
const gunzip = promisify(gunzipCb);
const brotli = promisify(brotliCb);
const unbrotli = promisify(unbrotliCb);

/**
 * Objects are immutable and addressed by the SHA-256 of their uncompressed bytes.
 * - A chunk holds a piece of an artifact, compressed: with brotli in format 2, with gzip in
 *   format 1 (compressChunk).
 * - A file index lists the chunks of one whole artifact; its id is the artifact's hash, so
 *   "is this artifact archived?" is one lookup.
 */
export interface FileIndex {
  format: 1;
  size: number;
  /** [chunk id, uncompressed length] in order. */
  chunks: [ObjectId, number][];
}

export interface PutResult {
  id: ObjectId;
  size: number;
  /** Compressed bytes this call added to the archive (0 when everything was there). */
  storedBytes: number;
  newChunks: number;
}

// zlib runs on libuv's thread pool: a few at once use both cores without flooding memory.
const PARALLEL_CHUNKS = 8;
// Reading is bound by latency on object storage (a request per chunk): more in flight. Chunks
// are at most 256 KiB (128 KiB in format 2), so this bounds memory at a few MiB beyond the artifact itself.
const PARALLEL_READS = 32;
const GZIP_LEVEL = 6;

/** How the archive on `backend` cuts artifacts (its FORMAT; chunking.ts). */
function chunkingOf(backend: Backend): Chunking {
  return CHUNKINGS[archiveFormatOn(backend) ?? 2];
}

/**
 * Format 2 stores a chunk with brotli (quality 5, a window of a chunk's greatest size), format 1
 * with gzip. On a chunk of 32 KiB, brotli was 11 % smaller on run results and 9 % on manifests,
 * decompressed faster, and compressed at about gzip's speed. Readers tell the two apart by gzip's
 * magic bytes (1f 8b): an archive can hold both (a transfer from a format-1 archive), and a
 * brotli stream with this window starts with 0x81, so one that did not would be stored gzipped.
 */
const BROTLI = { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5, [zlibConstants.BROTLI_PARAM_LGWIN]: 17 } };

async function compressChunk(backend: Backend, chunk: Uint8Array): Promise<Buffer> {
  if (archiveFormatOn(backend) === 1) return gzip(chunk, { level: GZIP_LEVEL });
  const packed = await brotli(chunk, { params: { ...BROTLI.params, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: chunk.length } });
  return isGzip(packed) ? gzip(chunk, { level: GZIP_LEVEL }) : packed;
}

const isGzip = (stored: Uint8Array): boolean => stored[0] === 0x1f && stored[1] === 0x8b;

/**
 * A stored chunk as the archive on `to` stores it, for a transfer: a format-1 archive gets gzip,
 * since the dbtattic that made it reads nothing else; the rest is copied as it is.
 */
export async function chunkStoredFor(to: Backend, stored: Buffer): Promise<Buffer> {
  return archiveFormatOn(to) === 1 && !isGzip(stored) ? gzip(await unbrotli(stored, { chunkSize: MAX_CHUNK }), { level: GZIP_LEVEL }) : stored;
}

function decompressChunk(stored: Buffer): Promise<Buffer> {
  // One output buffer of a chunk's greatest size: zlib's default 16 KiB pieces cost twice the CPU.
  return isGzip(stored) ? gunzip(stored, { chunkSize: MAX_CHUNK }) : unbrotli(stored, { chunkSize: MAX_CHUNK });
}

/** `onChunk` hears the uncompressed length of each chunk once it is in the archive (progress). */
export async function putBlob(backend: Backend, bytes: Uint8Array, id: ObjectId = sha256(bytes), onChunk?: (length: number) => void): Promise<PutResult> {
  const existing = await readFileIndexIfPresent(backend, id);
  if (existing) {
    keepWrittenBlob(id, bytes);
    return { id, size: bytes.length, storedBytes: 0, newChunks: 0 };
  }
  const chunks = splitChunks(bytes, chunkingOf(backend));
  const index: FileIndex = { format: 1, size: bytes.length, chunks: chunks.map((c) => [sha256(c), c.length]) };
  let storedBytes = 0;
  let newChunks = 0;
  await forEachLimited(chunks, PARALLEL_CHUNKS, async (chunk, i) => {
    const written = await putChunk(backend, index.chunks[i]![0], chunk);
    onChunk?.(chunk.length);
    storedBytes += written;
    if (written > 0) newChunks++;
  });
  // The index goes last: once it exists, every chunk it names exists too.
  const indexBytes = await gzip(JSON.stringify(index), { level: GZIP_LEVEL });
  if (await backend.putIfAbsent(fileKey(id), indexBytes)) storedBytes += indexBytes.length;
  keepWrittenBlob(id, bytes);
  return { id, size: bytes.length, storedBytes, newChunks };
}

async function putChunk(backend: Backend, id: ObjectId, chunk: Uint8Array): Promise<number> {
  const key = chunkKey(id);
  if (await backend.has(key)) return 0;
  const compressed = await compressChunk(backend, chunk);
  return (await backend.putIfAbsent(key, compressed)) ? compressed.length : 0;
}

/**
 * What of a blob is missing or damaged, re-written from its intact bytes: the file index and any
 * chunk that is absent or does not read back to its hash. Capture calls it when it holds the
 * bytes of an artifact the archive already records, so capturing the original again repairs it.
 * Costs a read of the stored chunks: only paid when the bytes were read anyway.
 */
export async function repairBlob(backend: Backend, bytes: Uint8Array, id: ObjectId = sha256(bytes)): Promise<number> {
  const chunks = splitChunks(bytes, chunkingOf(backend));
  const ids = chunks.map((c) => sha256(c));
  let rewritten = 0;
  await forEachLimited(chunks, PARALLEL_CHUNKS, async (chunk, i) => {
    if (await readsBack(() => readChunk(backend, ids[i]!))) return;
    // Counted after the write: `rewritten += await …` would read the count before it, and
    // chunks rewritten side by side would each add to the same stale count.
    const written = await rewriteChunk(backend, ids[i]!, chunk);
    rewritten += written;
  });
  if (!(await readsBack(() => readFileIndex(backend, id)))) {
    const index: FileIndex = { format: 1, size: bytes.length, chunks: chunks.map((c, i) => [ids[i]!, c.length]) };
    rewritten += await rewrite(backend, fileKey(id), await gzip(JSON.stringify(index), { level: GZIP_LEVEL }));
  }
  return rewritten;
}

/**
 * Re-writes the chunks among `wanted` that an intact copy of an artifact contains; returns their
 * ids. Cut as the archive cuts, then as the other formats do: a transfer can bring an artifact
 * cut by an archive of another format.
 */
export async function restoreChunks(backend: Backend, bytes: Uint8Array, wanted: ReadonlySet<ObjectId>): Promise<ObjectId[]> {
  const restored: ObjectId[] = [];
  const own = chunkingOf(backend);
  for (const sizes of [own, ...Object.values(CHUNKINGS).filter((c) => c !== own)]) {
    if (restored.length === wanted.size) break;
    for (const chunk of splitChunks(bytes, sizes)) {
      const id = sha256(chunk);
      if (wanted.has(id) && !restored.includes(id) && (await rewriteChunk(backend, id, chunk)) > 0) restored.push(id);
    }
  }
  return restored;
}

async function rewriteChunk(backend: Backend, id: ObjectId, chunk: Uint8Array): Promise<number> {
  return rewrite(backend, chunkKey(id), await compressChunk(backend, chunk));
}

/**
 * The one exception to "written once": a damaged object is removed and written again. Its key
 * names its content, so the new bytes are what the old ones should have been.
 */
async function rewrite(backend: Backend, key: string, data: Uint8Array): Promise<number> {
  await backend.delete(key);
  return (await backend.putIfAbsent(key, data)) ? 1 : 0;
}

async function readsBack(read: () => Promise<unknown>): Promise<boolean> {
  try {
    await read();
    return true;
  } catch (error) {
    if (error instanceof AtticError && error.code === 'archive-damaged') return false;
    throw error;
  }
}

export async function hasBlob(backend: Backend, id: ObjectId): Promise<boolean> {
  return backend.has(fileKey(id));
}

/**
 * The bytes of a blob, handed over when this process wrote it (written-blobs.ts), else read from
 * the archive. For deriving rows from what was just captured; `verify`, which must see what
 * the archive holds, reads with readBlob.
 */
export async function recallBlob(backend: Backend, id: ObjectId): Promise<Buffer> {
  const held = writtenBlob(id);
  return held ? Buffer.from(held.buffer, held.byteOffset, held.byteLength) : readBlob(backend, id);
}

/** The exact original bytes of a blob, checked against its hash. */
export async function readBlob(backend: Backend, id: ObjectId): Promise<Buffer> {
  const index = await readFileIndex(backend, id);
  // One buffer of the final size, filled chunk by chunk: a 500 MB manifest must not exist twice
  // in memory (its chunks, then their concatenation).
  const bytes = Buffer.allocUnsafe(index.size);
  const offsets = chunkOffsets(index);
  await forEachLimited(index.chunks, PARALLEL_READS, async ([chunkId, length], i) => {
    const chunk = await readChunk(backend, chunkId);
    if (chunk.length !== length || offsets[i]! + length > index.size) throw damaged(`chunk ${chunkId} has another length than its file index says`);
    chunk.copy(bytes, offsets[i]);
  });
  if (sha256(bytes) !== id) throw damaged(`artifact ${id} reassembles to different bytes than were stored`);
  return bytes;
}

function chunkOffsets(index: FileIndex): number[] {
  const offsets: number[] = [];
  let at = 0;
  for (const [, length] of index.chunks) {
    offsets.push(at);
    at += length;
  }
  if (at !== index.size) throw damaged(`the file index of an artifact adds up to ${at} bytes, not ${index.size}`);
  return offsets;
}

export async function readChunk(backend: Backend, id: ObjectId): Promise<Buffer> {
  return (await readCheckedChunk(backend, id)).bytes;
}

/** A chunk as stored (compressed), once its content is checked: a copy carries no damage on. */
export async function readStoredChunk(backend: Backend, id: ObjectId): Promise<Buffer> {
  return (await readCheckedChunk(backend, id)).stored;
}

async function readCheckedChunk(backend: Backend, id: ObjectId): Promise<{ stored: Buffer; bytes: Buffer }> {
  const stored = await backend.get(chunkKey(id));
  if (!stored) throw damaged(`chunk ${id} is missing`);
  const bytes = await decompressChunk(stored).catch(() => {
    throw damaged(`chunk ${id} cannot be decompressed`);
  });
  if (sha256(bytes) !== id) throw damaged(`chunk ${id} does not match its hash`);
  return { stored, bytes };
}

export async function readFileIndex(backend: Backend, id: ObjectId): Promise<FileIndex> {
  const index = await readFileIndexIfPresent(backend, id);
  if (!index) throw damaged(`artifact ${id} is not in the archive`);
  return index;
}

async function readFileIndexIfPresent(backend: Backend, id: ObjectId): Promise<FileIndex | undefined> {
  const stored = await backend.get(fileKey(id));
  if (!stored) return undefined;
  try {
    const index = JSON.parse((await gunzip(stored)).toString('utf8')) as FileIndex;
    if (index.format !== 1 || !Array.isArray(index.chunks)) throw new Error('unknown shape');
    return index;
  } catch {
    throw damaged(`the file index of artifact ${id} is unreadable`);
  }
}

function damaged(message: string): AtticError {
  return new AtticError('archive-damaged', `${message}. Run 'dbtattic verify' to see the extent of the damage.`);
}
