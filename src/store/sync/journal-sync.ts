import { promises as fs } from 'node:fs';
import path from 'node:path';
import { captureRecordKey, forgetRecordKey, listJournalIds, readJournalEntries, type Backend } from '../../archive/index.js';
import { timeOfTimeId } from '../../vocab/index.js';
import { catchUp, type CatchUpReport, type ProgressFn } from './catch-up.js';
import type { Database } from '../db/database.js';
import { asStoreWriteError } from '../db/store-file.js';

/**
 * Catching a local store up with a remote archive without listing the bucket: the journal
 * (archive/journal.ts) is listed after the newest entry seen, minus a look-back window that
 * covers clocks that differ between runners and captures still uploading when they were
 * listed. Entries in the window whose capture record has not appeared yet (a writer still at
 * work, or one that died) are read again on each sync until they leave the window; the rest
 * are remembered as done. `rebuild` reads everything, whatever the window.
 */
export const LOOKBACK_MS = 24 * 60 * 60 * 1000;
const SYNC_FILE = 'sync.json';

interface SyncMark {
  /** The newest journal id seen. */
  newest: string | null;
  /** Entries in the window whose capture records are all in the store. */
  done: string[];
}

export async function catchUpFromJournal(
  db: Database,
  backend: Backend,
  localDir: string,
  onProgress?: ProgressFn,
): Promise<CatchUpReport & { journal: number }> {
  const mark = await readMark(localDir);
  const ids = await listJournalIds(backend, mark.newest ? lowerBound(mark.newest) : undefined);
  const done = new Set(mark.done);
  const open = ids.filter((id) => !done.has(id));
  const entries = await readJournalEntries(backend, open);
  const scope = {
    captureKeys: entries.flatMap((e) => e.captures.map(captureRecordKey)),
    artifactKeys: entries.flatMap((e) => e.artifactKeys),
    forgetKeys: entries.flatMap((e) => (e.forgetId ? [forgetRecordKey(e.forgetId)] : [])),
  };
  const report = await catchUp(db, backend, onProgress, scope);
  const complete = await completeEntries(db, entries);
  // Only an entry that was read counts as a position: a stray key (records/journal/ffff….json)
  // sorts after every entry to come, and taken as the newest it hid them all from this cache.
  const newest =
    [mark.newest, ...entries.map((e) => e.id)]
      .filter((id): id is string => id !== null)
      .sort()
      .at(-1) ?? null;
  const floor = newest ? lowerBound(newest) : '';
  await writeMark(localDir, { newest, done: [...done, ...complete].filter((id) => id > floor).sort() });
  return { ...report, journal: open.length };
}

/** An entry is done once every capture record it names is in the store. */
async function completeEntries(db: Database, entries: readonly { id: string; captures: string[] }[]): Promise<string[]> {
  if (entries.length === 0) return [];
  const rows = (await db.connection.runAndReadAll('SELECT capture_id FROM capture')).getRows();
  const stored = new Set(rows.map(([id]) => String(id)));
  return entries.filter((e) => e.captures.every((id) => stored.has(id))).map((e) => e.id);
}

/** The smallest key of the window that ends at `id`. */
function lowerBound(id: string): string {
  const millis = Number.parseInt(id.slice(0, 13), 16);
  if (!Number.isFinite(millis)) return '';
  return Math.max(0, millis - LOOKBACK_MS)
    .toString(16)
    .padStart(13, '0');
}

async function readMark(localDir: string): Promise<SyncMark> {
  try {
    const value = JSON.parse(await fs.readFile(path.join(localDir, SYNC_FILE), 'utf8')) as SyncMark;
    return { newest: plausiblePosition(value.newest), done: Array.isArray(value.done) ? value.done.map(String) : [] };
  } catch {
    return { newest: null, done: [] };
  }
}

/**
 * A position written before stray keys were ignored may be one (a cache blinded so stays
 * blind): a position is a journal id of no later than a day from now, else the journal is
 * listed whole once more.
 */
function plausiblePosition(newest: unknown): string | null {
  const at = typeof newest === 'string' ? timeOfTimeId(newest) : undefined;
  return at !== undefined && at.getTime() <= Date.now() + LOOKBACK_MS ? (newest as string) : null;
}

async function writeMark(localDir: string, mark: SyncMark): Promise<void> {
  const temp = path.join(localDir, `${SYNC_FILE}.${process.pid}.tmp`);
  try {
    await fs.writeFile(temp, `${JSON.stringify(mark)}\n`);
    await fs.rename(temp, path.join(localDir, SYNC_FILE));
  } catch (error) {
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw asStoreWriteError(path.join(localDir, SYNC_FILE), error);
  }
}
