import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readRegularFile } from './regular-file.js';
import { listSqlFiles } from './sql-files.js';

/**
 * Files that may be intact copies of archived objects, for `verify --repair`: the JSON files in
 * target/ and in the state directories `dbtattic state` wrote, and the SQL files under target/
 * (compiled/, run/), which a SQL tree names by their hash. Only regular files are read (a FIFO
 * would block), one at a time, so memory stays at one file.
 */
export async function* intactCopies(jsonDirs: readonly string[], targetDir: string | null): AsyncIterable<Buffer> {
  for (const dir of jsonDirs) {
    for (const file of await jsonFilesIn(dir)) {
      const bytes = await fs.readFile(file).catch(() => null);
      if (bytes) yield bytes;
    }
  }
  if (!targetDir) return;
  for (const file of await listSqlFiles(targetDir)) {
    const bytes = await readRegularFile(file.abs).catch(() => null);
    if (bytes) yield bytes;
  }
}

/** The regular *.json files in `dir` and in its subdirectories one level down. */
async function jsonFilesIn(dir: string, depth = 1): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  const files: string[] = [];
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isFile() && entry.name.endsWith('.json')) files.push(full);
    else if (entry.isDirectory() && depth > 0) files.push(...(await jsonFilesIn(full, depth - 1)));
  }
  return files;
}
