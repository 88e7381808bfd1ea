// What a bench's outputs take on disk, measured the same way by every bench that reports it.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** Bytes of every file under dir. */
export function treeBytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(path.join(entry.parentPath ?? entry.path, entry.name)).size;
  }
  return total;
}

/** A store directory's database, with its write-ahead log when one is left. */
export function storeBytes(store) {
  const file = path.join(store, 'store.duckdb');
  return statSync(file).size + (existsSync(`${file}.wal`) ? statSync(`${file}.wal`).size : 0);
}
