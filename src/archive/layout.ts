import { fanOut, type ObjectId } from '../vocab/index.js';
import type { ArtifactType } from '../vocab/index.js';

/**
 * Where each kind of thing lives in an archive, in one place: docs/archive-format.md
 * describes exactly these keys.
 */
export const FORMAT_KEY = 'FORMAT';
export const CHUNKS_PREFIX = 'chunks/';
export const FILES_PREFIX = 'files/';
export const INVOCATION_RECORDS_PREFIX = 'records/invocations/';
export const CAPTURE_RECORDS_PREFIX = 'records/captures/';
export const JOURNAL_PREFIX = 'records/journal/';
export const OUTPUT_RECORDS_PREFIX = 'records/outputs/';
export const REFS_PREFIX = 'refs/';

export function chunkKey(id: ObjectId): string {
  return `${CHUNKS_PREFIX}${fanOut(id)}`;
}

export function fileKey(id: ObjectId): string {
  return `${FILES_PREFIX}${fanOut(id)}`;
}

/** Ids come from artifacts we do not control: keep keys to safe path segments. */
export function keySegment(value: string): string {
  const encoded = encodeURIComponent(value);
  return encoded === '.' || encoded === '..' ? encoded.replace(/\./g, '%2E') : encoded;
}

/**
 * An invocation id becomes a directory name: 255 bytes is the usual limit of one, and the
 * record file names beside it leave room. dbt's ids are 36-character UUIDs; ours `content-` + 32.
 */
export const MAX_INVOCATION_ID_SEGMENT = 200;

/** Why `id` cannot name an invocation in the archive, or null when it can. */
export function invocationIdProblem(id: string): string | null {
  if (id.trim() === '') return 'its metadata.invocation_id is empty';
  const length = keySegment(id).length;
  if (length > MAX_INVOCATION_ID_SEGMENT) {
    return `its metadata.invocation_id is ${id.length} characters long (${length} once encoded as a file name; at most ${MAX_INVOCATION_ID_SEGMENT})`;
  }
  return null;
}

export function artifactRecordKey(invocationId: string, artifact: ArtifactType, sha: ObjectId): string {
  return `${INVOCATION_RECORDS_PREFIX}${keySegment(invocationId)}/${artifact}-${sha}.json`;
}

/** What an invocation wrote besides artifacts (its SQL tree, its slice of dbt.log). */
export function outputRecordKey(invocationId: string, output: string, sha: ObjectId): string {
  return `${OUTPUT_RECORDS_PREFIX}${keySegment(invocationId)}/${output}-${sha}.json`;
}

export function captureRecordKey(captureId: string): string {
  return `${CAPTURE_RECORDS_PREFIX}${keySegment(captureId)}.json`;
}

export function journalKey(id: string): string {
  return `${JOURNAL_PREFIX}${keySegment(id)}.json`;
}

/**
 * A ref's name is one key segment whatever it holds: `feature` and `feature/x` must be able to
 * coexist, which nested paths would not allow (a file cannot also be a directory).
 */
export function refKey(namespace: string, name: string): string {
  return `${REFS_PREFIX}${namespace}/${encodeURIComponent(name).replace(/\./g, '%2E')}`;
}

/**
 * The compare-and-swap fallback (branches.ts): one immutable entry per capture that moved a
 * branch, `refs/branch-heads/<branch>/<capture id>`; the head is the newest.
 */
export const HEAD_ENTRIES_PREFIX = `${REFS_PREFIX}branch-heads/`;

export function headEntriesPrefix(branch: string): string {
  return `${HEAD_ENTRIES_PREFIX}${encodeURIComponent(branch).replace(/\./g, '%2E')}/`;
}

export function headEntryKey(branch: string, captureId: string): string {
  return `${headEntriesPrefix(branch)}${keySegment(captureId)}`;
}

export function refNameOfKey(namespace: string, key: string): string | undefined {
  const prefix = `${REFS_PREFIX}${namespace}/`;
  return key.startsWith(prefix) ? decodedSegment(key.slice(prefix.length)) : undefined;
}

/** The invocation a record key under `prefix` (records/invocations/, outputs/, plans/) is filed under; '' for a key spelt as none is. */
export function invocationOfRecordKey(prefix: string, key: string): string {
  return decodedSegment(key.slice(prefix.length).split('/')[0] ?? '') ?? '';
}

/** A key segment as refKey and headEntriesPrefix encode names; undefined for one spelt as none is (a stray % in a bucket). */
export function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** The object id inside a chunk or file key, or undefined for any other key. */
export function idOfObjectKey(key: string, prefix: string): ObjectId | undefined {
  if (!key.startsWith(prefix)) return undefined;
  const rest = key.slice(prefix.length);
  const id = rest.slice(0, 2) + rest.slice(3);
  return rest[2] === '/' && /^[0-9a-f]{64}$/.test(id) ? id : undefined;
}
