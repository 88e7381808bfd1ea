import type { Backend } from './backend.js';
import { FORGOTTEN_PREFIX } from './forgotten.js';
import { CAPTURE_RECORDS_PREFIX, INVOCATION_RECORDS_PREFIX, JOURNAL_PREFIX, OUTPUT_RECORDS_PREFIX } from './layout.js';

/**
 * Whether anything a store derives from has been filed since a moment, told without listing
 * the records: a stamp of the record folders that every filing changes. A capture that files
 * anything writes a capture record, or else (killed before it) a journal entry first; a new
 * invocation or output adds its folder; forget writes a forget record; push and pull write a
 * journal entry. So equal stamps mean no record was filed or forgotten in between. (Not seen:
 * a capture killed after filing an output of an invocation that already had one, before its
 * capture record; the listing after the next filing finds it.) Null where the storage cannot
 * say (object storage), or cannot yet (a change in the last seconds).
 */
const FOLDERS = [CAPTURE_RECORDS_PREFIX, JOURNAL_PREFIX, INVOCATION_RECORDS_PREFIX, OUTPUT_RECORDS_PREFIX, FORGOTTEN_PREFIX];

export async function readChangeStamp(backend: Backend): Promise<string | null> {
  return backend.folderStamp ? backend.folderStamp(FOLDERS) : null;
}
