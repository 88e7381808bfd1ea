import { constants, promises as fs } from 'node:fs';
import { AtticError } from '../errors.js';
import { sha256OfPieces, type ObjectId } from '../vocab/index.js';

/**
 * Reading files dbt left in target/, which anything may have put there. Only a regular file is
 * read, and only up to a bound: a FIFO named manifest.json would block the read (and with it
 * every dbt command behind the shell wrapper) and a symlink to /dev/zero never ends. The file is
 * opened without blocking and checked on the open descriptor, so it cannot be swapped between
 * the check and the read. Every capture of target/ (artifacts, compiled SQL, logs) reads through
 * here.
 */

/** Larger than any artifact dbt writes (the biggest manifest seen: 573 MB), below Node's Buffer limit. */
export const MAX_TARGET_FILE_BYTES = 2 * 1024 ** 3;

/** Why a path cannot be read as a regular file, or null when it can; for an lstat/stat result. */
export function notRegularReason(stat: {
  isFile(): boolean;
  isFIFO(): boolean;
  isDirectory(): boolean;
  isCharacterDevice(): boolean;
  isSocket(): boolean;
}): string | null {
  if (stat.isFile()) return null;
  if (stat.isFIFO()) return 'it is a FIFO, not a regular file';
  if (stat.isDirectory()) return 'it is a directory, not a regular file';
  if (stat.isCharacterDevice()) return 'it is a device, not a regular file';
  if (stat.isSocket()) return 'it is a socket, not a regular file';
  return 'it is not a regular file';
}

/**
 * The bytes of the regular file at `file`, at most `maxBytes` of them. Throws ENOENT as fs does
 * (absence is not an error to callers); every other refusal is an `artifact-unreadable` AtticError.
 */
export async function readRegularFile(file: string, maxBytes = MAX_TARGET_FILE_BYTES, onPiece?: (piece: Buffer) => void): Promise<Buffer> {
  return (await readRegularFileFrom(file, 0, maxBytes, onPiece)).bytes;
}

/**
 * The bytes of the regular file at `file` from offset `from` (none when it is shorter), and the
 * file's device and inode, read on the descriptor the bytes came from: a log rotation renames a
 * file, keeping them.
 */
export async function readRegularFileFrom(
  file: string,
  from: number,
  maxBytes = MAX_TARGET_FILE_BYTES,
  onPiece?: (piece: Buffer) => void,
): Promise<{ bytes: Buffer; fileId: string }> {
  const handle = await openNonBlocking(file);
  try {
    const stat = await handle.stat({ bigint: true });
    const reason = notRegularReason(stat);
    if (reason) throw new AtticError('artifact-unreadable', reason);
    const size = Math.max(0, Number(stat.size) - from);
    if (size > maxBytes) throw tooLarge(size, maxBytes);
    return { bytes: await readBounded(handle, from, size, maxBytes, onPiece), fileId: fileIdOf(stat) };
  } finally {
    await handle.close();
  }
}

/**
 * The bytes and their SHA-256, hashed piece by piece as they are read: each piece is hashed
 * while the next is read, where hashing after the whole read waited for both one after the other
 * (a 49 MB manifest: about 60 ms of reading, 90 of hashing).
 */
export async function readRegularFileHashed(file: string, maxBytes = MAX_TARGET_FILE_BYTES): Promise<{ bytes: Buffer; sha256: ObjectId }> {
  const hasher = sha256OfPieces();
  const bytes = await readRegularFile(file, maxBytes, (piece) => hasher.add(piece));
  return { bytes, sha256: hasher.id() };
}

/** A file as the file system knows it, whatever its name: what a rename keeps. */
export function fileIdOf(stat: { dev: bigint; ino: bigint }): string {
  return `${stat.dev}:${stat.ino}`;
}

async function openNonBlocking(file: string): Promise<fs.FileHandle> {
  try {
    return await fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENOENT') throw error;
    throw new AtticError('artifact-unreadable', `it cannot be read (${code ?? String(error)})`);
  }
}

/** Small enough that the hashing of one piece and the reading of the next overlap for most of a large file. */
const PIECE_BYTES = 4 * 1024 * 1024;

/**
 * Reads to the end, refusing a file that grew past the bound while we read it. The next piece is
 * asked for before `onPiece` is handed the last one, so the two run side by side.
 */
async function readBounded(handle: fs.FileHandle, from: number, expected: number, maxBytes: number, onPiece?: (piece: Buffer) => void): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  let buffer = Buffer.allocUnsafe(Math.max(1, Math.min(expected + 1, maxBytes + 1)));
  let filled = 0;
  const readNext = (): Promise<number> => handle.read(buffer, filled, Math.min(PIECE_BYTES, buffer.length - filled), from + total).then((r) => r.bytesRead);
  let reading = readNext();
  for (;;) {
    const bytesRead = await reading;
    if (bytesRead === 0) break;
    total += bytesRead;
    if (total > maxBytes) throw tooLarge(total, maxBytes);
    const piece = buffer.subarray(filled, filled + bytesRead);
    filled += bytesRead;
    // The file outgrew what it said it held: read on, a megabyte at a time, up to the bound.
    if (filled === buffer.length) {
      parts.push(buffer);
      buffer = Buffer.allocUnsafe(Math.min(1024 * 1024, maxBytes + 1 - total));
      filled = 0;
    }
    reading = readNext();
    onPiece?.(piece);
  }
  if (filled > 0) parts.push(buffer.subarray(0, filled));
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts, total);
}

function tooLarge(size: number, maxBytes: number): AtticError {
  return new AtticError(
    'artifact-unreadable',
    `it holds more than ${maxBytes} bytes (${size} read), more than any dbt artifact; left out rather than read into memory`,
  );
}
