import { datasetFileKey, type DatasetFile } from './layout.js';

/**
 * What an export writes and deletes, decided from facts alone (plan, then apply). The store
 * says which files its invocations need now; the listing says what the dataset holds.
 * - A needed file not listed is written; a listed one is left as it is (written once).
 * - A listed file of an invocation the store holds but does not need (its rows changed, or it
 *   has none in that table now) is deleted, after the writes: a reader may see an invocation's
 *   old and new rows together for a moment, never neither.
 * - A listed file of a forgotten invocation is deleted.
 * - Any other file is left alone: the invocation may be one this store has not caught up on,
 *   written by another exporter of the same archive. Racing exporters therefore only add.
 */
export interface ExportFacts {
  /** The files the store's rows make, one per table and invocation that has rows there. */
  needed: readonly DatasetFile[];
  /** Every invocation of the store (also those with no rows in some table). */
  invocations: ReadonlySet<string>;
  forgotten: ReadonlySet<string>;
  /** The dataset files listed under the store's projects, parsed. */
  listed: readonly DatasetFile[];
}

export interface ExportPlan {
  write: DatasetFile[];
  delete: DatasetFile[];
  unchanged: number;
}

export function planExport(facts: ExportFacts): ExportPlan {
  const listedKeys = new Set(facts.listed.map(datasetFileKey));
  // A store not yet caught up on a forget still holds its invocation: the archive has the last word.
  const needed = facts.needed.filter((file) => !facts.forgotten.has(file.invocationId));
  const neededKeys = new Set(needed.map(datasetFileKey));
  const write = needed.filter((file) => !listedKeys.has(datasetFileKey(file)));
  const doomed = (file: DatasetFile): boolean =>
    facts.forgotten.has(file.invocationId) || (facts.invocations.has(file.invocationId) && !neededKeys.has(datasetFileKey(file)));
  return { write, delete: facts.listed.filter(doomed), unchanged: needed.length - write.length };
}
