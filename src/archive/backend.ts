/**
 * The storage an archive lives on, as small as restic's: keys are '/'-separated relative paths.
 * Objects and records are written once with putIfAbsent; only refs change, by compareAndSwap.
 * Implementations: backends/fs.ts (a directory), backends/mem.ts (tests); S3 later.
 */
export interface StoredKey {
  key: string;
  size: number;
}

export interface Backend {
  /** A human description for messages: a path or URL, never with credentials. */
  readonly location: string;
  /** The bytes under `key`, or undefined when there is none. */
  get(key: string): Promise<Buffer | undefined>;
  has(key: string): Promise<boolean>;
  /**
   * Writes `data` under `key` unless something is already there; true when this call wrote it.
   * Readers never see a partial value.
   */
  putIfAbsent(key: string, data: Uint8Array): Promise<boolean>;
  /** Every key under `prefix` (recursively), in no particular order. */
  list(prefix: string): Promise<StoredKey[]>;
  delete(key: string): Promise<void>;
  /**
   * Replaces the value under `key` with `next` only if it currently equals `expected`
   * (undefined: absent). True when it swapped. `next` undefined deletes.
   */
  compareAndSwap(key: string, expected: Uint8Array | undefined, next: Uint8Array | undefined): Promise<boolean>;
}

export function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return Buffer.compare(a, b) === 0;
}
