/**
 * The storage an archive lives on, as small as restic's: keys are '/'-separated relative paths.
 * Objects and records are written once with putIfAbsent; only refs change, by compareAndSwap.
 * Implementations: backends/fs.ts (a directory), backends/mem.ts (tests), backends/s3/ (object
 * storage). One contract suite (test/contract/backend.test.ts) runs against each.
 */
export interface StoredKey {
  key: string;
  size: number;
  /** When the value was written, in epoch milliseconds, where the storage says (prune's grace period reads it). */
  modifiedMs?: number;
}

/**
 * What the storage can promise. Object stores differ: some ignore conditional writes. Without
 * compare-and-swap, branch heads use the fallback of branches.ts (immutable head entries).
 */
export interface BackendCapabilities {
  createOnly: boolean;
  compareAndSwap: boolean;
}

export interface Backend {
  /** A human description for messages: a path or URL, never with credentials. */
  readonly location: string;
  readonly capabilities: BackendCapabilities;
  /** The bytes under `key`, or undefined when there is none. */
  get(key: string): Promise<Buffer | undefined>;
  has(key: string): Promise<boolean>;
  /**
   * Writes `data` under `key` unless something is already there; true when this call wrote it.
   * Readers never see a partial value.
   */
  putIfAbsent(key: string, data: Uint8Array): Promise<boolean>;
  /**
   * Every key under `prefix` (recursively), in no particular order; with `startAfter`, only keys
   * that sort after it (byte order), which object stores answer without listing the rest.
   */
  list(prefix: string, startAfter?: string): Promise<StoredKey[]>;
  delete(key: string): Promise<void>;
  /**
   * Replaces the value under `key` with `next` only if it currently equals `expected`
   * (undefined: absent). True when it swapped. `next` undefined deletes.
   */
  compareAndSwap(key: string, expected: Uint8Array | undefined, next: Uint8Array | undefined): Promise<boolean>;
  /**
   * Optional: a value that changes whenever a key or folder is added to or removed from one of
   * these folders itself (not deeper), or null when it cannot be trusted, because a folder changed
   * too recently for its time to tell two changes apart. The fs backend's folder modification
   * times; object storage has no such thing.
   */
  folderStamp?(prefixes: readonly string[]): Promise<string | null>;
}

export function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return Buffer.compare(a, b) === 0;
}
