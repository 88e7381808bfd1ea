import path from 'node:path';
import type { SqlFiles } from '../archive/index.js';
import { isAtticError } from '../errors.js';
import { sha256 } from '../vocab/index.js';
import { forEachLimited } from '../vocab/parallel.js';
import { readRegularFile } from './regular-file.js';
import type { SqlCache } from './sql-cache.js';

/**
 * The SQL dbt writes under target/: compiled/<project>/<path> (a node's compiled SQL) and
 * run/<project>/<path> (the statement it executed: DDL around the compiled SQL, a test's
 * failure count); Fusion writes compiled/<path> and run/<file> instead, with .macro_spans.json
 * files beside. dbt never deletes either folder's files, so every file still there from an
 * earlier command is read here and left out by its modification time.
 */
export const SQL_FOLDERS = ['compiled', 'run'] as const;
/**
 * dbt v2 (Fusion) can leave Parquet files at the top of target/ beside the JSON (its run history;
 * the layout is not published): kept in the same tree, as bytes, by the same attribution.
 */
const PARQUET_AT_TOP = '*.parquet';
/** Far above any compiled model; a larger file is not SQL we should hold in memory. */
const MAX_SQL_FILE_BYTES = 64 * 1024 * 1024;

export interface ListedSqlFile {
  /** Relative to target/, with '/' separators: compiled/attic_shop/models/x.sql. */
  rel: string;
  abs: string;
  identity: string;
  modifiedMs: number;
}

export interface ReadSqlFiles {
  files: SqlFiles;
  /** Bytes of the files read now (not vouched for by the cache): stored if the archive lacks them. */
  read: Map<string, Buffer>;
  errors: string[];
}

/** Regular files only: fast-glob without following links, so a link to /dev/zero is never opened. */
export async function listSqlFiles(targetDir: string): Promise<ListedSqlFile[]> {
  const { default: glob } = await import('fast-glob');
  const entries = await glob([...SQL_FOLDERS.map((f) => `${f}/**`), PARQUET_AT_TOP], {
    cwd: targetDir,
    onlyFiles: true,
    stats: true,
    followSymbolicLinks: false,
    dot: true,
    suppressErrors: true,
  });
  return entries.map((e) => {
    const s = e.stats!;
    return { rel: e.path, abs: path.join(targetDir, e.path), identity: [s.dev, s.ino, s.size, s.mtimeMs, s.ctimeMs].join(':'), modifiedMs: s.mtimeMs };
  });
}

/** Hashes each file, reading only those the cache cannot vouch for. */
export async function readSqlFiles(listed: readonly ListedSqlFile[], cache: SqlCache): Promise<ReadSqlFiles> {
  const out: ReadSqlFiles = { files: new Map(), read: new Map(), errors: [] };
  await forEachLimited(listed, 8, async (file) => {
    const known = cache.lookup(file.rel, file.identity);
    if (known) {
      out.files.set(file.rel, known);
      return;
    }
    try {
      const bytes = await readRegularFile(file.abs, MAX_SQL_FILE_BYTES);
      const id = sha256(bytes);
      out.files.set(file.rel, { id, size: bytes.length });
      out.read.set(file.rel, bytes);
      cache.remember(file.rel, file.identity, file.modifiedMs, id, bytes.length);
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT') return;
      out.errors.push(`${file.rel}: ${isAtticError(error) ? error.message : String(error)}`);
    }
  });
  return out;
}
