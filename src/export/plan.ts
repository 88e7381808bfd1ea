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

export interface ScopeFacts {
  /** The store's invocations in history's order (v_invocation_sequence.seq). */
  order: readonly string[];
  /** The invocation table's files as the store makes them now: one per invocation. */
  invocationFiles: readonly DatasetFile[];
  forgotten: ReadonlySet<string>;
  listed: readonly DatasetFile[];
}

/**
 * The invocations whose files an export must digest again (the other tables' rows read and
 * hashed), or null for all of them. An invocation's rows depend on its own artifacts and on
 * history before it, never after (a run result is matched to the manifest at or before it, a
 * node change to the manifest before, a node version is filed with its first holder), so:
 * - an invocation whose invocation file is listed under the name the store gives it now, no
 *   table of which has two files listed (a killed export between a write and its delete), and
 *   all of whose files are in its partition, is settled (exports write the invocation file last): its artifacts are the ones exported (any new one changes its invocation row:
 *   counts, times, has_manifest) and so is its partition;
 * - every invocation from the first one in history that is not settled onwards is digested:
 *   a new run, and an older run filed late, whose arrival can re-match all that follows it.
 * All of them when a forgotten invocation still has files: its node versions' first holder moves.
 * Digesting costs a scan of every table; settled history then costs one scan of the invocations.
 */
export function digestScope(facts: ScopeFacts): Set<string> | null {
  if (facts.listed.some((file) => facts.forgotten.has(file.invocationId))) return null;
  const listedKeys = new Set(facts.listed.map(datasetFileKey));
  const perTable = new Map<string, number>();
  for (const file of facts.listed) perTable.set(`${file.table}\n${file.invocationId}`, (perTable.get(`${file.table}\n${file.invocationId}`) ?? 0) + 1);
  const doubled = new Set([...perTable].filter(([, n]) => n > 1).map(([key]) => key.split('\n')[1]!));
  const partition = new Map(facts.invocationFiles.map((f) => [f.invocationId, `${f.project}/${f.date}`]));
  for (const file of facts.listed)
    if (partition.has(file.invocationId) && partition.get(file.invocationId) !== `${file.project}/${file.date}`) doubled.add(file.invocationId);
  const settled = new Set(facts.invocationFiles.filter((f) => listedKeys.has(datasetFileKey(f)) && !doubled.has(f.invocationId)).map((f) => f.invocationId));
  const first = facts.order.findIndex((id) => !settled.has(id));
  if (first === 0) return null;
  return new Set(first < 0 ? [] : facts.order.slice(first));
}
