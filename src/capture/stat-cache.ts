import { promises as fs, type BigIntStats } from 'node:fs';
import type { ObjectId } from '../vocab/index.js';
import type { ArtifactHeader } from './artifact-header.js';
import { saveCacheFile } from './cache-file.js';

/**
 * Remembers what a file in target/ hashed to, keyed by its identity (device, inode, size,
 * modification and change times in nanoseconds), as git's index does: capture sits in front of
 * every dbt command, and re-hashing an unchanged 100 MB manifest each time costs a third of a
 * second. A file modified within the last two seconds is not remembered (git's "racily clean"
 * guard): on a file system with coarse timestamps, a second write in the same tick would keep
 * the same identity. Losing or corrupting the cache costs only a re-hash.
 */
export interface CachedInspection {
  sha256: ObjectId;
  size: number;
  header: ArtifactHeader;
  invocationId: string;
  invocationIdSource: 'metadata' | 'content' | 'manifest';
}

interface Entry extends CachedInspection {
  identity: string;
}

const RACY_NS = 2_000_000_000n;

export function identityOf(stat: BigIntStats): string {
  return [stat.dev, stat.ino, stat.size, stat.mtimeNs, stat.ctimeNs].join(':');
}

export class StatCache {
  private constructor(
    private readonly file: string,
    private readonly entries: Record<string, Entry>,
    /** Artifact records known to be in the archive: asking a remote store costs a request each. */
    private readonly archived: Set<string>,
    private readonly memos: Record<string, unknown> = {},
  ) {}

  static async load(file: string): Promise<StatCache> {
    try {
      const parsed: unknown = JSON.parse(await fs.readFile(file, 'utf8'));
      const held =
        parsed && typeof parsed === 'object' ? (parsed as { entries?: Record<string, Entry>; archived?: unknown; memos?: Record<string, unknown> }) : {};
      const archived = Array.isArray(held.archived) ? (held.archived as string[]) : [];
      return new StatCache(file, held.entries ?? {}, new Set(archived), held.memos ?? {});
    } catch {
      return new StatCache(file, {}, new Set());
    }
  }

  /** Records are never rewritten or removed, so once seen in the archive, a record stays there. */
  isArchived(recordKey: string): boolean {
    return this.archived.has(recordKey);
  }

  markArchived(recordKey: string): void {
    this.archived.add(recordKey);
  }

  lookup(filePath: string, stat: BigIntStats): CachedInspection | undefined {
    const entry = this.entries[filePath];
    return entry && entry.identity === identityOf(stat) ? entry : undefined;
  }

  remember(filePath: string, stat: BigIntStats, inspection: CachedInspection): void {
    const now = BigInt(Date.now()) * 1_000_000n;
    if (now - stat.mtimeNs < RACY_NS) {
      delete this.entries[filePath];
      return;
    }
    this.entries[filePath] = { identity: identityOf(stat), ...inspection };
  }

  /**
   * What an earlier capture concluded about something other than an artifact file (the SQL tree
   * of an invocation, dbt.log's identity), so that an unchanged one is not even listed again.
   */
  memo(key: string): unknown {
    return this.memos[key];
  }

  setMemo(key: string, value: unknown): void {
    this.memos[key] = value;
  }

  async save(): Promise<void> {
    // Only what target/ holds now matters: forget records of files no longer there.
    const current = new Set(Object.values(this.entries).map((e) => e.sha256));
    const archived = [...this.archived].filter((key) => current.has(key.slice(-64)));
    await saveCacheFile(this.file, JSON.stringify({ format: 1, entries: this.entries, archived, memos: this.memos }));
  }
}
