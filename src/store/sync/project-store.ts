import { existsSync } from 'node:fs';
import { openArchive, readBranch, type Backend } from '../../archive/index.js';
import type { AtticConfig } from '../../config/resolve.js';
import { AtticError, isAtticError } from '../../errors.js';
import { openIfCurrent } from './archive-stamp.js';
import { countUnseenRecords, type ProgressFn } from './catch-up.js';
import { readStoreDamage, type StoreDamage } from '../db/damage.js';
import { STORE_WAIT_MS, untilFree } from '../db/busy-wait.js';
import { isStoreBusy, openDatabase, openUnlessBusy, type Database, type StoreBusy } from '../db/database.js';
import type { MovedAside } from '../db/store-file.js';
import { openAheadOfCatchUp, rebuildStore, syncStore, type SyncReport } from './sync.js';
import type { CatchUpAhead } from './catch-up-ahead.js';
import { markWaiting } from '../db/waiting-readers.js';

/**
 * The store of a configured project, as commands use it. Capture writes the archive first and
 * then catches the store up, but never fails or waits because of it: if another process holds
 * the store, the next command catches up.
 */
export async function catchUpAfterCapture(
  config: AtticConfig,
  captureIds: readonly string[],
  ahead?: CatchUpAhead | null,
): Promise<SyncReport | { status: 'failed'; error: string }> {
  try {
    const backend = await openArchive(config.archiveLocation, { create: false, remote: config.remote });
    return await syncStore(backend, config.databaseFile, 'skip', undefined, { captureIds }, ahead ?? undefined);
  } catch (error) {
    return { status: 'failed', error: error instanceof Error ? error.message : String(error) };
  } finally {
    // Closed by the catch-up when it ran; not when the archive could not be opened.
    releaseStoreAhead(ahead);
  }
}

/**
 * Opens the store for the catch-up after a capture while the capture writes the archive, and
 * reads ahead what ingest reads first (catch-up-ahead.ts). `invocationId`: the invocation whose
 * manifest the capture files. Null when the store is not to be had now.
 */
export function openStoreAhead(config: AtticConfig, invocationId: string | null): Promise<CatchUpAhead | null> {
  return openAheadOfCatchUp(config.databaseFile, invocationId);
}

/** Lets go of a store opened ahead, when the capture wrote nothing for it to catch up on. */
export function releaseStoreAhead(ahead: CatchUpAhead | null | undefined): void {
  ahead?.db.close();
}

/** What a reading command should tell its user beside its answer. */
export interface ReadNotice {
  /** What the store left out because the archive is damaged. */
  damage: StoreDamage;
  /** Set when the store could not be caught up and is this many records behind the archive. */
  behind: { records: number; why: string } | null;
  movedAside: MovedAside | null;
  /** Set when the store was written under another schema and was rebuilt from the archive first. */
  rebuilt: { invocations: number } | null;
  /** What this read ingested left the store wasteful: its compaction is due (compact-store.ts). */
  compactionDue: boolean;
}

/**
 * Reading commands catch up first, then read. Readers never wait for each other: when other
 * processes only read the store (a long query), or the store cannot be written (a read-only
 * mount), it is read as it is, and the notice says how far behind the archive it is. Only a
 * writer holding the store makes a reader wait, a bounded time.
 */
export async function withCurrentStore<T>(
  config: AtticConfig,
  read: (db: Database) => Promise<T>,
  onProgress?: ProgressFn,
  onNotice?: (notice: ReadNotice) => void,
): Promise<T> {
  const opened = config.offline
    ? await openOffline(config.databaseFile)
    : await openCurrentStore(
        await openArchive(config.archiveLocation, { create: false, remote: config.remote }),
        config.databaseFile,
        onProgress,
        config.remote !== null,
      );
  try {
    const value = await read(opened.db);
    onNotice?.({
      damage: opened.damage ?? (await readStoreDamage(opened.db.connection)),
      behind: opened.behind,
      movedAside: opened.movedAside,
      rebuilt: opened.rebuilt ?? null,
      compactionDue: opened.compactionDue === true,
    });
    return value;
  } finally {
    opened.db.close();
  }
}

interface OpenedStore {
  db: Database;
  behind: ReadNotice['behind'];
  movedAside: MovedAside | null;
  rebuilt?: ReadNotice['rebuilt'];
  compactionDue?: boolean;
  /** Known when it was opened: a current store has no damaged rows (archive-stamp.ts), and no one writes it while it is open for reading. */
  damage?: StoreDamage;
}

/** Reading commands catch up first (waiting a little for a busy store), then read. */
export async function syncForReading(config: AtticConfig, onProgress?: ProgressFn): Promise<SyncReport> {
  const backend = await openArchive(config.archiveLocation, { create: false, remote: config.remote });
  return syncStore(backend, config.databaseFile, 'wait', onProgress, config.remote ? { journal: true } : undefined);
}

async function openOffline(file: string): Promise<OpenedStore> {
  if (!existsSync(file)) throw new AtticError('not-found', `No local store at ${file} to read offline. Run 'dbtattic sync' first (without --offline).`);
  return { db: await openDatabase(file, 'read'), behind: null, movedAside: null };
}

/** `remote`: the archive is object storage, caught up through its journal and never listed whole. */
async function openCurrentStore(backend: Backend, file: string, onProgress: ProgressFn | undefined, remote: boolean): Promise<OpenedStore> {
  const current = remote ? null : await openIfCurrent(backend, file);
  if (current) return { db: current, behind: null, movedAside: null, damage: { invocations: [], records: [] } };
  const backendToCount = remote ? null : backend;
  // Another process may take the store between our catch-up and our read (a compaction's swap,
  // another command's catch-up): what the catch-up said is kept, and the read is tried again.
  let caughtUp: CaughtUp = { movedAside: null, rebuilt: null, compactionDue: false };
  let waiting: (() => void) | undefined;
  const opened = await untilFree(
    STORE_WAIT_MS,
    async (): Promise<OpenedStore | StoreBusy> => {
      let report: SyncReport;
      try {
        report = await syncStore(backend, file, 'once', onProgress, remote ? { journal: true } : undefined);
      } catch (error) {
        if (!isAtticError(error) || error.code !== 'read-only') throw error;
        return readAsItIs(backendToCount, file, 'the store cannot be written', error);
      }
      if (report.status === 'busy') {
        // The writer that held it (the catch-up `run` leaves behind it, most often) may have let
        // go in between: then this read catches up too, rather than read what that writer alone
        // ingested. Busy still, the store is held by readers, and is read as it is.
        const retried = await syncStore(backend, file, 'once', onProgress, remote ? { journal: true } : undefined).catch(() => report);
        if (retried.status !== 'busy') report = retried;
      }
      if (report.status !== 'busy') caughtUp = foldCatchUp(caughtUp, report);
      const reader = await openUnlessBusy(file, 'read');
      if (isStoreBusy(reader)) {
        waiting ??= markWaiting(file);
        return reader;
      }
      const behind = report.status === 'busy' ? await behindBy(reader, backendToCount, 'other processes are reading the store') : null;
      return { db: reader, behind, ...caughtUp };
    },
    isStoreBusy,
  ).finally(() => waiting?.());
  if (isStoreBusy(opened)) throw opened;
  return opened;
}

type CaughtUp = Pick<Required<OpenedStore>, 'movedAside' | 'rebuilt' | 'compactionDue'>;

function foldCatchUp(before: CaughtUp, report: Exclude<SyncReport, { status: 'busy' }>): CaughtUp {
  return {
    movedAside: report.movedAside ?? before.movedAside,
    rebuilt: report.status === 'rebuilt' ? { invocations: report.report.invocations } : before.rebuilt,
    compactionDue: before.compactionDue || (report.status === 'synced' && report.compactionDue === true),
  };
}

async function readAsItIs(backend: Backend | null, file: string, why: string, cause: AtticError): Promise<OpenedStore> {
  const db = await openDatabase(file, 'read').catch(() => Promise.reject(cause));
  return { db, behind: await behindBy(db, backend, why), movedAside: null };
}

/** How far behind the store is; not counted for object storage (`backend` null), which is never listed whole. */
async function behindBy(db: Database, backend: Backend | null, why: string): Promise<ReadNotice['behind']> {
  if (!backend) return null;
  const records = await countUnseenRecords(db.connection, backend);
  return records > 0 ? { records, why } : null;
}

export async function rebuildProjectStore(config: AtticConfig, onProgress?: ProgressFn): ReturnType<typeof rebuildStore> {
  const backend = await openArchive(config.archiveLocation, { create: false, remote: config.remote });
  return rebuildStore(backend, config.databaseFile, onProgress);
}

/** The run a branch made with `branch create` starts at, read from its ref in the archive. */
export function branchBaseReader(config: AtticConfig): (branch: string) => Promise<string | null> {
  return async (branch) => {
    const backend = await openArchive(config.archiveLocation, { create: false, remote: config.remote });
    return (await readBranch(backend, branch))?.base?.invocation_id ?? null;
  };
}
