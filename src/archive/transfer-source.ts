import { isAtticError } from '../errors.js';
import type { Backend } from './backend.js';
import { chunkKey, fileKey, INVOCATION_RECORDS_PREFIX, invocationOfRecordKey } from './layout.js';
import { chunkStoredFor, readFileIndex, readStoredChunk } from './objects.js';
import { parseArtifactRecord, parseCaptureRecord, type ArtifactRecord, type CaptureRecord } from './records.js';
import { forEachLimited } from '../vocab/parallel.js';

/**
 * What a transfer reads from its source, with the source's damage kept to what is damaged: an
 * unreadable record, file index or chunk leaves out its invocation (every record of it, and
 * every capture record naming it, which would dangle there), and the copy goes on with the
 * others. Damage is never copied: a chunk is checked against its hash before it is written.
 */
export interface DamagedInSource {
  /** The invocation left out; null for a capture record that names none it could read. */
  invocation_id: string | null;
  key: string;
  problem: string;
}

export interface SourceRecord {
  key: string;
  bytes: Buffer;
  record: ArtifactRecord;
}

export interface SourceCapture {
  key: string;
  bytes: Buffer;
  capture: CaptureRecord;
}

export class SourceDamage {
  private readonly byInvocation = new Map<string | null, DamagedInSource[]>();

  add(invocationId: string | null, key: string, error: unknown): void {
    if (!isAtticError(error) || (error.code !== 'archive-damaged' && error.code !== 'artifact-unreadable')) throw error;
    const problem = error.message.replace(/ Run 'dbtattic verify'.*$/, '');
    this.byInvocation.set(invocationId, [...(this.byInvocation.get(invocationId) ?? []), { invocation_id: invocationId, key, problem }]);
  }

  has(invocationId: string): boolean {
    return this.byInvocation.has(invocationId);
  }

  list(): DamagedInSource[] {
    return [...this.byInvocation.values()].flat().sort((a, b) => a.key.localeCompare(b.key));
  }
}

/** The artifact records behind `keys`, in key order; an unreadable one is damage of its invocation. */
export async function readArtifactRecords(from: Backend, keys: readonly string[], damage: SourceDamage): Promise<SourceRecord[]> {
  const read = await readParsed(from, keys, parseArtifactRecord, (key, error) => damage.add(invocationOfRecordKey(INVOCATION_RECORDS_PREFIX, key), key, error));
  return read.map(({ key, bytes, parsed }) => ({ key, bytes, record: parsed }));
}

/** Reads each record's file index now, so damage found there keeps its invocation out of the journal. */
export async function checkFileIndexes(from: Backend, records: readonly SourceRecord[], damage: SourceDamage): Promise<void> {
  await forEachLimited(records, 16, async ({ record }) => {
    await readFileIndex(from, record.sha256).catch((error: unknown) => damage.add(record.invocation_id, fileKey(record.sha256), error));
  });
}

/** The capture records behind `keys`, in key order; an unreadable one is damage of no invocation. */
export async function readCaptureRecords(from: Backend, keys: readonly string[], damage: SourceDamage): Promise<SourceCapture[]> {
  const read = await readParsed(from, keys, parseCaptureRecord, (key, error) => damage.add(null, key, error));
  return read.map(({ key, bytes, parsed }) => ({ key, bytes, capture: parsed }));
}

/** Records read and parsed, in key order; a key gone since it was listed is skipped. */
async function readParsed<T>(
  from: Backend,
  keys: readonly string[],
  parse: (key: string, bytes: Buffer) => T,
  onDamage: (key: string, error: unknown) => void,
): Promise<{ key: string; bytes: Buffer; parsed: T }[]> {
  const out: { key: string; bytes: Buffer; parsed: T }[] = [];
  await forEachLimited(keys, 16, async (key) => {
    const bytes = await from.get(key);
    if (!bytes) return;
    try {
      out.push({ key, bytes, parsed: parse(key, bytes) });
    } catch (error) {
      onDamage(key, error);
    }
  });
  return out.sort((a, b) => a.key.localeCompare(b.key));
}

/**
 * Copies an artifact's chunks, each checked, then its file index; returns how many objects were
 * new there. Throws archive-damaged for a chunk missing or damaged in the source.
 */
export async function copyBlob(from: Backend, to: Backend, id: string): Promise<number> {
  if (await to.has(fileKey(id))) return 0;
  const index = await readFileIndex(from, id);
  let copied = 0;
  await forEachLimited([...new Set(index.chunks.map(([chunk]) => chunk))], 8, async (chunk) => {
    if (await to.has(chunkKey(chunk))) return;
    const stored = await readStoredChunk(from, chunk);
    if (await to.putIfAbsent(chunkKey(chunk), await chunkStoredFor(to, stored))) copied++;
  });
  const indexBytes = await from.get(fileKey(id));
  if (indexBytes && (await to.putIfAbsent(fileKey(id), indexBytes))) copied++;
  return copied;
}
