import { promises as fs } from 'node:fs';
import type { SqlTreeBase } from '../archive/index.js';
import type { ObjectId } from '../vocab/index.js';
import { saveCacheFile } from './cache-file.js';

/**
 * The stat cache of target/compiled and target/run (stat-cache.ts explains the idea): a SQL
 * file whose identity is unchanged is not re-read, and the last tree written is kept whole, so
 * the next one can be a delta on it without reading the archive. Its own file, loaded only
 * when the SQL has to be listed: a project of 10,000 models makes it megabytes, which a capture
 * of an unchanged target/ must not parse. Losing it costs a re-read and a whole tree.
 */
interface Entry {
  identity: string;
  id: ObjectId;
  size: number;
}

interface Held {
  files: Record<string, Entry>;
  tree: { id: ObjectId; depth: number; files: Record<string, [ObjectId, number]> } | null;
}

const RACY_MS = 2000;

export class SqlCache {
  private constructor(
    private readonly file: string,
    private held: Held,
  ) {}

  static async load(file: string): Promise<SqlCache> {
    try {
      const parsed = JSON.parse(await fs.readFile(file, 'utf8')) as Partial<Held>;
      return new SqlCache(file, { files: parsed.files ?? {}, tree: parsed.tree ?? null });
    } catch {
      return new SqlCache(file, { files: {}, tree: null });
    }
  }

  lookup(rel: string, identity: string): { id: ObjectId; size: number } | undefined {
    const entry = this.held.files[rel];
    return entry && entry.identity === identity ? entry : undefined;
  }

  /** A file modified in the last two seconds is not remembered: a second write in the same tick would keep its identity. */
  remember(rel: string, identity: string, modifiedMs: number, id: ObjectId, size: number): void {
    if (Date.now() - modifiedMs < RACY_MS) delete this.held.files[rel];
    else this.held.files[rel] = { identity, id, size };
  }

  lastTree(): SqlTreeBase | null {
    const tree = this.held.tree;
    if (!tree) return null;
    return { id: tree.id, depth: tree.depth, files: new Map(Object.entries(tree.files).map(([p, [id, size]]) => [p, { id, size }])) };
  }

  setLastTree(tree: SqlTreeBase): void {
    const files: Record<string, [ObjectId, number]> = {};
    for (const [p, f] of tree.files) files[p] = [f.id, f.size];
    this.held.tree = { id: tree.id, depth: tree.depth, files };
  }

  async save(): Promise<void> {
    await saveCacheFile(this.file, JSON.stringify({ format: 1, ...this.held }));
  }
}
