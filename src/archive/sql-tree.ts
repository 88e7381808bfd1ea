import { AtticError } from '../errors.js';
import { canonicalJson, type ObjectId } from '../vocab/index.js';
import type { Backend } from './backend.js';
import { putBlob, readBlob, type PutResult } from './objects.js';

/**
 * The SQL an invocation wrote under target/compiled and target/run, as one content-addressed
 * tree: path (relative to target/) → blob of the file. Each file is an ordinary blob, so an
 * unchanged file costs nothing. The listing itself would cost ~100 bytes a file (a 64-hex id
 * does not compress), more than the SQL a run changes in a large project, so a tree may be a
 * delta on a base tree (as a git pack delta): the files that differ and the paths removed. A
 * chain is at most MAX_DEPTH long, and a delta that lists over half the files is written whole.
 */
export interface SqlFile {
  id: ObjectId;
  size: number;
}

export type SqlFiles = Map<string, SqlFile>;

export interface SqlTreeDocument {
  format: 1;
  kind: 'sql-tree';
  base: ObjectId | null;
  depth: number;
  /** path → [blob id, size]; with a base, only what differs from it. */
  files: Record<string, [ObjectId, number]>;
  removed: string[];
}

export interface SqlTreeBase {
  id: ObjectId;
  depth: number;
  files: SqlFiles;
}

export const MAX_TREE_DEPTH = 16;

/** Decides the document for `files`: a delta on `base` when that is worth it, else whole. Pure. */
export function planSqlTree(files: SqlFiles, base: SqlTreeBase | null): SqlTreeDocument {
  const whole = (): SqlTreeDocument => ({ format: 1, kind: 'sql-tree', base: null, depth: 0, files: listing(files, () => true), removed: [] });
  if (!base || base.depth + 1 >= MAX_TREE_DEPTH) return whole();
  const differs = (p: string, f: SqlFile): boolean => base.files.get(p)?.id !== f.id || base.files.get(p)?.size !== f.size;
  const changed = listing(files, differs);
  const removed = [...base.files.keys()].filter((p) => !files.has(p)).sort();
  if (Object.keys(changed).length + removed.length > files.size / 2) return whole();
  return { format: 1, kind: 'sql-tree', base: base.id, depth: base.depth + 1, files: changed, removed };
}

function listing(files: SqlFiles, keep: (p: string, f: SqlFile) => boolean): Record<string, [ObjectId, number]> {
  const out: Record<string, [ObjectId, number]> = {};
  for (const [p, f] of [...files.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) if (keep(p, f)) out[p] = [f.id, f.size];
  return out;
}

export function sqlTreeBytes(doc: SqlTreeDocument): Buffer {
  return Buffer.from(canonicalJson(doc));
}

export async function putSqlTree(backend: Backend, doc: SqlTreeDocument): Promise<PutResult> {
  return putBlob(backend, sqlTreeBytes(doc));
}

/** Every file of the tree `id`, its delta chain applied. */
export async function readSqlTree(backend: Backend, id: ObjectId): Promise<SqlTreeBase> {
  const chain: SqlTreeDocument[] = [];
  for (let at: ObjectId | null = id; at !== null; at = chain[chain.length - 1]!.base) {
    if (chain.length > MAX_TREE_DEPTH) throw damaged(`SQL tree ${id} has a delta chain longer than ${MAX_TREE_DEPTH}`);
    chain.push(parseSqlTree(at, await readBlob(backend, at)));
  }
  const files: SqlFiles = new Map();
  for (const doc of chain.reverse()) {
    for (const p of doc.removed) files.delete(p);
    for (const [p, [fileId, size]] of Object.entries(doc.files)) files.set(p, { id: fileId, size });
  }
  return { id, depth: chain[chain.length - 1]!.depth, files };
}

export function parseSqlTree(id: ObjectId, bytes: Buffer): SqlTreeDocument {
  try {
    const doc = JSON.parse(bytes.toString('utf8')) as SqlTreeDocument;
    if (doc.kind === 'sql-tree' && doc.format === 1 && doc.files && typeof doc.files === 'object' && Array.isArray(doc.removed)) return doc;
  } catch {
    // reported below
  }
  throw damaged(`SQL tree ${id} is not a tree document`);
}

function damaged(message: string): AtticError {
  return new AtticError('archive-damaged', `${message}. Run 'dbtattic verify'.`);
}
