import type { AtticConfig } from '../config/resolve.js';
// The modules, not the store's index: `query "select 1"` is the floor of every reading command,
// and the index loads every report and comparison module too.
import type { Database } from '../store/db/database.js';
import { withCurrentStore, type ReadNotice } from '../store/sync/project-store.js';

export type { ReadNotice };

/** An answer as the front ends get it: the value, and what the read said beside it. */
export interface Answered<T> {
  value: T;
  /** Set when the read has something to say: a damaged archive, a store rebuilt or behind. */
  notice: ReadNotice | null;
}

export type ProgressFn = (done: number, total: number) => void;

/** Reads the store once caught up with the archive (reporting progress), keeping its notice. */
export async function readCurrent<T>(config: AtticConfig, read: (db: Database) => Promise<T>, onProgress?: ProgressFn): Promise<Answered<T>> {
  let notice: ReadNotice | null = null;
  const value = await withCurrentStore(config, read, onProgress, (said) => {
    notice = said;
  });
  return { value, notice };
}
