import { sameBytes, type Backend, type StoredKey } from '../backend.js';
import { sortsAfter } from './fs.js';

/** A backend in memory, for tests and for the contract suite's reference behaviour. */
export class MemBackend implements Backend {
  readonly location = 'mem:';
  readonly capabilities = { createOnly: true, compareAndSwap: true };
  private readonly values = new Map<string, Buffer>();
  private readonly written = new Map<string, number>();

  async get(key: string): Promise<Buffer | undefined> {
    const value = this.values.get(key);
    return value && Buffer.from(value);
  }

  async has(key: string): Promise<boolean> {
    return this.values.has(key);
  }

  async putIfAbsent(key: string, data: Uint8Array): Promise<boolean> {
    if (this.values.has(key)) return false;
    this.values.set(key, Buffer.from(data));
    this.written.set(key, Date.now());
    return true;
  }

  async list(prefix: string, startAfter?: string): Promise<StoredKey[]> {
    const keys: StoredKey[] = [];
    for (const [key, value] of this.values) {
      if (key.startsWith(prefix) && (startAfter === undefined || sortsAfter(key, startAfter)))
        keys.push({ key, size: value.length, modifiedMs: this.written.get(key) ?? 0 });
    }
    return keys;
  }

  async delete(key: string): Promise<void> {
    this.values.delete(key);
    this.written.delete(key);
  }

  async compareAndSwap(key: string, expected: Uint8Array | undefined, next: Uint8Array | undefined): Promise<boolean> {
    if (!sameBytes(this.values.get(key), expected)) return false;
    if (next === undefined) this.values.delete(key);
    else {
      this.values.set(key, Buffer.from(next));
      this.written.set(key, Date.now());
    }
    return true;
  }
}
