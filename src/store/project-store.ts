import { existsSync } from 'node:fs';
import { openArchive, readBranch } from '../archive/index.js';
import { AtticError } from '../errors.js';
import type { AtticConfig } from '../config/resolve.js';
import type { ProgressFn } from './catch-up.js';
import { openDatabase, type Database } from './database.js';
import { rebuildStore, syncStore, type SyncReport } from './sync.js';

/**
 * The store of a configured project, as commands use it. Capture writes the archive first and
 * then catches the store up, but never fails or waits because of it: if another process holds
 * the store, the next command catches up.
 */
export async function catchUpAfterCapture(config: AtticConfig, captureIds: readonly string[]): Promise<SyncReport | { status: 'failed'; error: string }> {
  try {
    const backend = await openArchive(config.archiveLocation, { create: false, remote: config.remote });
    return await syncStore(backend, config.databaseFile, 'skip', undefined, { captureIds });
  } catch (error) {
    return { status: 'failed', error: error instanceof Error ? error.message : String(error) };
  }
}

/** Reading commands catch up first (waiting a little for a busy store), then read. */
export async function syncForReading(config: AtticConfig, onProgress?: ProgressFn): Promise<SyncReport> {
  const backend = await openArchive(config.archiveLocation, { create: false, remote: config.remote });
  return syncStore(backend, config.databaseFile, 'wait', onProgress, config.remote ? { journal: true } : undefined);
}

export async function withCurrentStore<T>(config: AtticConfig, read: (db: Database) => Promise<T>, onProgress?: ProgressFn): Promise<T> {
  if (!config.offline) await syncForReading(config, onProgress);
  else if (!existsSync(config.databaseFile)) throw new AtticError('not-found', `No local store at ${config.databaseFile} to read offline. Run 'dbtattic sync' first (without --offline).`);
  const db = await openDatabase(config.databaseFile, 'read');
  try {
    return await read(db);
  } finally {
    db.close();
  }
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
