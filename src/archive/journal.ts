import type { ArtifactType, ObjectId } from '../vocab/index.js';
import type { Backend } from './backend.js';
import { artifactRecordKey, JOURNAL_PREFIX, journalKey } from './layout.js';
import { forEachLimited } from '../vocab/parallel.js';

/**
 * The journal makes "what is new since I last looked?" one listing in object storage, where
 * invocation ids (random UUIDs) cannot be listed in time order. Before a capture files
 * anything it writes a journal entry under its time-ordered capture id naming every record it
 * will write; a push writes one naming what it copied. A reader lists entries after the last
 * one it saw and reads just the records they name, so it also finds the artifact records of a
 * writer that died before its capture record.
 */
export interface JournalEntry {
  kind: 'journal';
  format: 1;
  journal_id: string;
  captures: string[];
  artifact_records: { invocation_id: string; artifact: ArtifactType; sha256: ObjectId }[];
  /** Set by `forget`: the forget record (forgotten.ts) whose invocations a store must drop. */
  forget_id?: string;
}

export async function putJournalEntry(backend: Backend, entry: Omit<JournalEntry, 'kind' | 'format'>): Promise<void> {
  await backend.putIfAbsent(journalKey(entry.journal_id), Buffer.from(`${JSON.stringify({ kind: 'journal', format: 1, ...entry })}\n`));
}

/** Ids of journal entries whose key sorts after `afterId` (every entry when undefined). */
export async function listJournalIds(backend: Backend, afterId?: string): Promise<string[]> {
  const keys = await backend.list(JOURNAL_PREFIX, afterId === undefined ? undefined : journalKey(afterId));
  return keys
    .map((k) => k.key.slice(JOURNAL_PREFIX.length))
    .filter((name) => name.endsWith('.json'))
    .map((name) => decodeURIComponent(name.slice(0, -'.json'.length)))
    .sort();
}

/** The given entries, each with the artifact record keys it names; an unreadable one is skipped (verify reports it). */
export async function readJournalEntries(
  backend: Backend,
  ids: readonly string[],
): Promise<{ id: string; captures: string[]; artifactKeys: string[]; forgetId?: string }[]> {
  const out: { id: string; captures: string[]; artifactKeys: string[]; forgetId?: string }[] = [];
  await forEachLimited(ids, 16, async (id) => {
    const bytes = await backend.get(journalKey(id));
    const entry = bytes ? parseJournalEntry(bytes) : undefined;
    const forget = typeof entry?.forget_id === 'string' ? { forgetId: entry.forget_id } : {};
    if (entry)
      out.push({
        id,
        captures: entry.captures,
        artifactKeys: entry.artifact_records.map((r) => artifactRecordKey(r.invocation_id, r.artifact, r.sha256)),
        ...forget,
      });
  });
  return out;
}

export function parseJournalEntry(bytes: Buffer): JournalEntry | undefined {
  try {
    const value = JSON.parse(bytes.toString('utf8')) as JournalEntry;
    return value.kind === 'journal' && Array.isArray(value.captures) && Array.isArray(value.artifact_records) ? value : undefined;
  } catch {
    return undefined;
  }
}
