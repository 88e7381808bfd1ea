import { isAtticError } from '../errors.js';
import {
  INVOCATION_RECORDS_PREFIX,
  invocationOfRecordKey,
  OUTPUT_RECORDS_PREFIX,
  parseSqlTree,
  readBlob,
  readFileIndex,
  MAX_TREE_DEPTH,
  type Backend,
  type SqlTreeDocument,
} from '../archive/index.js';
import { forEachLimited, type ObjectId } from '../vocab/index.js';

/**
 * Mark: every object some record needs. A record's key names its blob (`<artifact>-<sha>.json`,
 * `<sql|log>-<sha>.json`), so only file indexes and SQL trees are read: a blob needs its file
 * index and chunks; a SQL tree also needs every file it lists and its base trees.
 */
export class LiveSet {
  readonly files = new Set<ObjectId>();
  readonly chunks = new Set<ObjectId>();
  /** Record keys already marked from, so a second pass reads only new ones. */
  readonly records = new Set<string>();
  /** Objects a record needs that are missing or unreadable: prune refuses to sweep beside them. */
  readonly damaged = new Set<ObjectId>();

  constructor(private readonly backend: Backend) {}

  /** Marks from every record under the two prefixes, except those `skip` says go. */
  async markRecords(skip: (invocationId: string) => boolean = () => false): Promise<void> {
    for (const prefix of [INVOCATION_RECORDS_PREFIX, OUTPUT_RECORDS_PREFIX]) {
      const fresh = (await this.backend.list(prefix)).map((k) => k.key).filter((key) => key.endsWith('.json') && !this.records.has(key));
      const mine = fresh.filter((key) => !skip(invocationOfRecordKey(prefix, key)));
      await forEachLimited(mine, 16, (key) => this.markRecord(key));
    }
  }

  private async markRecord(key: string): Promise<void> {
    this.records.add(key);
    const name = key.slice(key.lastIndexOf('/') + 1, -'.json'.length);
    const sha = name.slice(name.lastIndexOf('-') + 1);
    await this.markBlob(sha);
    if (key.startsWith(OUTPUT_RECORDS_PREFIX) && name.startsWith('sql-')) await this.markTree(sha);
  }

  private async markBlob(id: ObjectId): Promise<boolean> {
    if (this.files.has(id)) return false;
    this.files.add(id);
    const index = await readFileIndex(this.backend, id).catch((error: unknown) => this.noteDamage(id, error));
    for (const [chunk] of index?.chunks ?? []) this.chunks.add(chunk);
    return index !== undefined;
  }

  /** A damaged object is noted, not fatal: the mark goes on, and prune then refuses (prune.ts). */
  private noteDamage(id: ObjectId, error: unknown): undefined {
    if (!isAtticError(error) || error.code !== 'archive-damaged') throw error;
    this.damaged.add(id);
    return undefined;
  }

  private treeOrNothing(id: ObjectId, bytes: Buffer): SqlTreeDocument | undefined {
    try {
      return parseSqlTree(id, bytes);
    } catch (error) {
      return this.noteDamage(id, error);
    }
  }

  /** A tree, its files, and its bases down the chain; a base marked before had its chain marked too. */
  private async markTree(id: ObjectId): Promise<void> {
    let at: ObjectId | null = id;
    for (let depth = 0; at !== null && depth <= MAX_TREE_DEPTH; depth++) {
      if (at !== id && !(await this.markBlob(at))) return;
      const blob: ObjectId = at;
      const bytes: Buffer | undefined = await readBlob(this.backend, blob).catch((error: unknown) => this.noteDamage(blob, error));
      const doc: SqlTreeDocument | undefined = bytes && this.treeOrNothing(blob, bytes);
      if (!doc) return;
      await forEachLimited(Object.values(doc.files), 8, async ([file]: [ObjectId, number]) => void (await this.markBlob(file)));
      at = doc.base;
    }
  }
}
