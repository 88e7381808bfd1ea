import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import type { Backend } from '../../archive/index.js';
import { catchUp, type CatchUpReport, type CatchUpScope, type ProgressFn } from './catch-up.js';
import type { CatchUpAhead } from './catch-up-ahead.js';
import { STORE_WAIT_MS, untilFree } from '../db/busy-wait.js';
import { inTransaction, isStoreBusy, openDatabase, openUnlessBusy, type Database } from '../db/database.js';
import { catchUpFromJournal } from './journal-sync.js';
import { readersWaiting } from '../db/waiting-readers.js';
import { copyCompacted, isWasteful, readCompactedBytes, readSpace } from './compact.js';
import { applyDescriptions, applySchema, hasCurrentStorage, loadSchemaSql, readSchemaVersion } from '../schema.js';
import { asStoreWriteError, isUnreadableStore, moveStoreAside, rebuildFileOf, removeAbandonedRebuilds, type MovedAside } from '../db/store-file.js';

/** skip: capture's way (never wait, never rebuild); wait: wait a little for the lock; once: do not wait, but rebuild. */
export type BusyPolicy = 'skip' | 'wait' | 'once';

export type SyncReport = (
  | ({
      status: 'synced';
      /** The store has grown wasteful (compact.ts): the caller starts compactStore, best beside its work. */
      compactionDue?: true;
    } & CatchUpReport)
  | { status: 'rebuilt'; report: CatchUpReport }
  | { status: 'busy' }
  | { status: 'stale' }
) & {
  /** Set when the store file could not be opened and was moved aside, to be derived again. */
  movedAside?: MovedAside;
};

/**
 * Makes the store current with the archive. A store written under another schema is rebuilt
 * from the archive into a new file that replaces the old one atomically; a store file DuckDB
 * cannot open is moved aside and derived again. `skip`: capture's way, which never waits for a
 * store another process holds (the next command catches up); `wait`: a reading command's way,
 * which waits a little, then says the store is busy.
 */
/** What to catch up on: `journal` for a remote archive, whose bucket is never listed whole. */
export type SyncScope = CatchUpScope | { journal: true };

export async function syncStore(
  backend: Backend,
  file: string,
  busy: BusyPolicy,
  onProgress?: ProgressFn,
  scope?: SyncScope,
  ahead?: CatchUpAhead,
): Promise<SyncReport> {
  try {
    return await syncOnce(backend, file, busy, onProgress, scope, ahead);
  } catch (error) {
    if (!isUnreadableStore(error)) throw asStoreWriteError(file, error);
    const movedAside = await moveStoreAside(file, error);
    return {
      ...(await syncOnce(backend, file, busy, onProgress, scope).catch((again: unknown) => Promise.reject(asStoreWriteError(file, again)))),
      movedAside,
    };
  }
}

/** `ahead`: the store opened (and found current) while the capture wrote the archive, with what it read then. */
async function syncOnce(
  backend: Backend,
  file: string,
  busy: BusyPolicy,
  onProgress?: ProgressFn,
  scope?: SyncScope,
  ahead?: CatchUpAhead,
): Promise<SyncReport> {
  const db = ahead?.db ?? (await openForWrite(file, busy));
  if (!db) return { status: 'busy' };
  let current: boolean;
  try {
    current = ahead !== undefined || (await prepare(db));
    if (current) {
      const report =
        scope && 'journal' in scope
          ? await catchUpFromJournal(db, backend, path.dirname(file), onProgress)
          : await catchUp(db, backend, onProgress, scope, ahead);
      const due = report.invocations + report.captures > 0 && (await isCompactionDue(db));
      return due ? { status: 'synced', ...report, compactionDue: true } : { status: 'synced', ...report };
    }
  } finally {
    db.close();
  }
  // A rebuild reads the whole archive: not a cost to pay in front of a dbt command. Capture
  // leaves it to the next reading command (or `dbtattic rebuild`).
  if (busy === 'skip') return { status: 'stale' };
  return { status: 'rebuilt', report: await rebuildStore(backend, file, onProgress) };
}

/**
 * Ingest leaves waste behind (compact.ts). Copying it away is not done here: at 1,000 runs the
 * copy takes most of a minute, and the writer here is a capture in front of dbt or a reader
 * in front of its answer.
 */
async function isCompactionDue(db: Database): Promise<boolean> {
  return isWasteful(await readSpace(db.connection), await readCompactedBytes(db.connection));
}

/** True when the store has the current schema and storage format (a new, empty file gets them now). */
async function prepare(db: Database): Promise<boolean> {
  if (!(await hasCurrentStorage(db.connection))) return false;
  const version = await readSchemaVersion(db.connection);
  // One transaction: a first command killed midway leaves an empty file, never half a schema.
  if (version === null && (await isEmpty(db))) await inTransaction(db.connection, () => applySchema(db.connection));
  else if (version !== loadSchemaSql().version) return false;
  else await applyDescriptions(db.connection);
  return true;
}

async function isEmpty(db: Database): Promise<boolean> {
  const rows = (
    await db.connection.runAndReadAll('SELECT count(*) AS n FROM information_schema.tables WHERE table_catalog = current_database()')
  ).getRowObjectsJson();
  return Number(rows[0]?.n ?? 0) === 0;
}

/**
 * Derives a whole new store from the archive, beside the old one, then renames it into place:
 * a reader never sees a half-built store, and a crash mid-rebuild leaves the old one as it was.
 */
export async function rebuildStore(backend: Backend, file: string, onProgress?: ProgressFn): Promise<RebuildReport> {
  const temp = rebuildFileOf(file);
  const compacted = `${temp}-compacted`;
  await fs.mkdir(path.dirname(file), { recursive: true });
  await removeAbandonedRebuilds(file);
  try {
    const db = await openDatabase(temp, 'write');
    let report: CatchUpReport;
    try {
      await applySchema(db.connection);
      report = await catchUp(db, backend, onProgress);
      await copyCompacted(db.connection, compacted);
    } finally {
      db.close();
    }
    const movedAside = await swapIn(compacted, file);
    return movedAside ? { ...report, movedAside } : report;
  } catch (error) {
    throw asStoreWriteError(file, error);
  } finally {
    for (const leftover of [temp, compacted]) {
      await fs.rm(leftover, { force: true });
      await fs.rm(`${leftover}.wal`, { force: true });
    }
  }
}

export type RebuildReport = CatchUpReport & { movedAside?: MovedAside };

/**
 * Renames the new store over the old one while holding the old one's write lock, so no other
 * process is mid-transaction on it, and its WAL (which belongs to the old file) can go. A rebuild
 * never needs the old file: one DuckDB cannot open is moved aside instead.
 */
async function swapIn(temp: string, file: string): Promise<MovedAside | undefined> {
  let guard: Database | null = null;
  let movedAside: MovedAside | undefined;
  try {
    guard = existsSync(file) ? await openForWrite(file, 'wait') : null;
  } catch (error) {
    if (!isUnreadableStore(error)) throw error;
    movedAside = await moveStoreAside(file, error);
  }
  try {
    await fs.rm(`${file}.wal`, { force: true });
    await fs.rename(temp, file);
  } finally {
    guard?.close();
  }
  return movedAside;
}

/**
 * The store held for the catch-up after a capture, opened while the capture writes the archive
 * (catch-up-ahead.ts). Null when it is not to be caught up that way: held by another process,
 * written under another schema, or unreadable; the catch-up then opens it as usual and says so.
 */
export async function openAheadOfCatchUp(file: string, invocationId: string | null): Promise<CatchUpAhead | null> {
  const db = await openForWrite(file, 'skip').catch(() => null);
  if (!db) return null;
  try {
    if (await prepare(db)) return await (await import('./catch-up-ahead.js')).readAhead(db, invocationId);
  } catch {
    // Whatever went wrong happens again when the catch-up opens the store, which says what it was.
  }
  db.close();
  return null;
}

async function openForWrite(file: string, busy: BusyPolicy): Promise<Database | null> {
  // A capture's catch-up gives way to a reader that is waiting: the reader catches up itself.
  if (busy === 'skip' && readersWaiting(file)) return null;
  await fs.mkdir(path.dirname(file), { recursive: true });
  // 'once' and 'skip' try the lock once.
  const opened = await untilFree(busy === 'wait' ? STORE_WAIT_MS : 0, () => openUnlessBusy(file, 'write'), isStoreBusy);
  if (!isStoreBusy(opened)) return opened;
  if (busy === 'wait') throw opened;
  return null;
}
