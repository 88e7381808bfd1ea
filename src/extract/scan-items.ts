import { AtticError } from '../errors.js';
import { JsonScanError, objectMembers, sectionMembers, skipValue, type JsonMember } from '../json/scan.js';
import type { ArtifactType } from '../vocab/index.js';

/**
 * Walking an artifact piece by piece: the members of a map (nodes, sources, catalog tables) and
 * the items of a list (run results), each parsed alone so no whole artifact is ever one string.
 * Scanner and parser failures become one user-facing error naming the artifact.
 */

/** A byte range [start, end) holding one JSON value. */
export interface ByteRange {
  start: number;
  end: number;
}

/** Yields the byte range of each item of the array that opens at `start`. */
export function* arrayItems(buf: Buffer, range: ByteRange): Generator<ByteRange> {
  let pos = skipSpace(buf, range.start, range.end);
  if (buf[pos] !== 0x5b) throw new JsonScanError('syntax', pos, 'expected an array');
  pos = skipSpace(buf, pos + 1, range.end);
  if (buf[pos] === 0x5d) return;
  for (;;) {
    const end = skipValue(buf, pos, range.end);
    yield { start: pos, end };
    pos = skipSpace(buf, end, range.end);
    if (buf[pos] === 0x5d) return;
    if (buf[pos] !== 0x2c) throw new JsonScanError(pos >= range.end ? 'truncated' : 'syntax', pos, "expected ',' or ']'");
    pos = skipSpace(buf, pos + 1, range.end);
  }
}

/**
 * Members of the object in `range`; an empty iteration when the value is null (dbt writes
 * `"disabled": null`). A top-level section of a large document was walked by the check of the
 * whole document (json/scan.ts), which kept where each member lies.
 */
export function* mapMembers(buf: Buffer, range: ByteRange): Generator<JsonMember> {
  if (isNull(buf, range)) return;
  yield* sectionMembers(buf, range) ?? objectMembers(buf, range.start, range.end);
}

export function* listItems(buf: Buffer, range: ByteRange): Generator<ByteRange> {
  if (isNull(buf, range)) return;
  yield* arrayItems(buf, range);
}

export function parseRange(buf: Buffer, range: ByteRange): unknown {
  return JSON.parse(buf.toString('utf8', range.start, range.end));
}

/** Runs `body`, turning a scan or parse failure into an AtticError that names the artifact. */
export function* guardScan<T>(type: ArtifactType, body: Generator<T>): Generator<T> {
  try {
    yield* body;
  } catch (error) {
    throw unreadableArtifact(type, error);
  }
}

/** Runs `read`, turning a scan or parse failure into an AtticError that names the artifact. */
export function readGuarded<T>(type: ArtifactType, read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw unreadableArtifact(type, error);
  }
}

export function unreadableArtifact(type: ArtifactType | 'artifact', error: unknown): unknown {
  if (error instanceof JsonScanError || error instanceof SyntaxError) {
    const name = type === 'artifact' ? 'The artifact' : `${type}.json`;
    const what = error instanceof JsonScanError && error.reason === 'limit' ? 'cannot be read safely' : 'is not valid JSON';
    return new AtticError('artifact-unreadable', `${name} ${what} (${error.message}); capture it again or drop it from the archive.`, { json: error.message });
  }
  return error;
}

function isNull(buf: Buffer, range: ByteRange): boolean {
  return buf[skipSpace(buf, range.start, range.end)] === 0x6e;
}

function skipSpace(buf: Buffer, pos: number, end: number): number {
  while (pos < end && (buf[pos] === 0x20 || buf[pos] === 0x0a || buf[pos] === 0x0d || buf[pos] === 0x09)) pos++;
  return pos;
}
