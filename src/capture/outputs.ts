import {
  hasBlob,
  hasOutputRecord,
  listOutputRecordKeys,
  planSqlTree,
  readOutputRecords,
  putBlob,
  putOutputRecord,
  type Backend,
  type CapturedOutput,
  type OutputRecord,
  type SqlTreeBase,
} from '../archive/index.js';
import { sqlTreeBytes } from '../archive/sql-tree.js';
import { AtticError, isAtticError } from '../errors.js';
import { sha256, type CapturePhase } from '../vocab/index.js';
import { forEachLimited } from '../vocab/parallel.js';
import type { Attribution } from './attribution.js';
import { logIdentity, readLogSlices, type LogResume } from './dbt-log.js';
import { readRegularFile } from './regular-file.js';
import { SqlCache } from './sql-cache.js';
import { listSqlFiles, readSqlFiles, type ReadSqlFiles } from './sql-files.js';
import type { StatCache } from './stat-cache.js';

/**
 * Captures what dbt wrote besides artifacts: the SQL tree of the invocation in target/ and the
 * slices of dbt.log. Each is skipped without listing anything when an earlier capture already
 * filed it (the invocation's artifacts and dbt.log's identity unchanged), so a capture of an
 * unchanged project, in front of every dbt command, costs no directory walk.
 */
export interface OutputOptions {
  targetDir: string;
  logDir: string | null;
  sql: boolean;
  logs: boolean;
  sqlCacheFile: string | null;
}

export interface OutputMeta {
  captureId: string;
  capturedAt: Date;
  phase: CapturePhase;
  /** An invocation `forget` forgot gets no output filed again. */
  isForgotten?: (invocationId: string) => Promise<boolean>;
}

interface SqlMemo {
  key: string;
  row: CapturedOutput | null;
}

export async function captureOutputs(
  backend: Backend,
  attribution: Attribution | null,
  options: OutputOptions,
  memos: StatCache | undefined,
  meta: OutputMeta,
): Promise<CapturedOutput[]> {
  const rows: CapturedOutput[] = [];
  if (options.sql && attribution) {
    const row = await captureSqlOnce(backend, attribution, options, memos, meta).catch(diskRefusal('sql', attribution.invocationId));
    if (row) rows.push(row);
  }
  if (options.logs && options.logDir) {
    const refused = diskRefusal('log', attribution?.invocationId ?? null);
    rows.push(...(await captureLog(backend, options.logDir, attribution, memos, meta).catch((error: unknown) => [refused(error)])));
  }
  return rows;
}

/**
 * A full or read-only disk stops this output, not the capture: what was written stays (objects
 * are whole or absent), and the artifacts still get their chance to fit. The output's row says why.
 */
function diskRefusal(output: CapturedOutput['output'], invocationId: string | null): (error: unknown) => CapturedOutput {
  return (error) => {
    if (!isAtticError(error) || (error.code !== 'no-space' && error.code !== 'read-only')) throw error;
    return outputError(output, invocationId, error.message);
  };
}

async function captureSqlOnce(
  backend: Backend,
  attribution: Attribution,
  options: OutputOptions,
  memos: StatCache | undefined,
  meta: OutputMeta,
): Promise<CapturedOutput | null> {
  const key = `${attribution.invocationId}|${attribution.marker}`;
  const memo = memos?.memo('sql') as SqlMemo | undefined;
  if (memo?.key === key) return memo.row ? { ...memo.row, status: 'unchanged', stored_bytes: 0 } : null;
  const row = await captureSql(backend, attribution, options, meta);
  memos?.setMemo('sql', { key, row: row?.status === 'error' ? null : row } satisfies SqlMemo);
  return row;
}

async function captureSql(backend: Backend, attribution: Attribution, options: OutputOptions, meta: OutputMeta): Promise<CapturedOutput | null> {
  // Once a tree was taken of the finished invocation, files that changed since are a later
  // command's: one that left no readable artifact (killed while writing them), or a hand edit.
  if (await hasFinishedTree(backend, attribution.invocationId)) return null;
  if (await meta.isForgotten?.(attribution.invocationId)) return forgottenOutput('sql', attribution.invocationId);
  const since = attribution.startedAt.getTime();
  const listed = (await listSqlFiles(options.targetDir)).filter((f) => f.modifiedMs >= since);
  if (listed.length === 0) return null;
  const cache = options.sqlCacheFile ? await SqlCache.load(options.sqlCacheFile) : null;
  const read = await readSqlFiles(listed, cache ?? (await SqlCache.load('')));
  if (read.errors.length > 0)
    return outputError('sql', attribution.invocationId, `${read.errors.length} SQL file(s) could not be read, e.g. ${read.errors[0]}`);
  let base = cache?.lastTree() ?? null;
  if (base && !(await hasBlob(backend, base.id))) base = null;
  let stored = await storeSqlFiles(backend, read, base, options.targetDir);
  const doc = planSqlTree(read.files, base);
  const bytes = sqlTreeBytes(doc);
  const put = await putBlob(backend, bytes);
  stored += put.storedBytes;
  let filesBytes = 0;
  for (const f of read.files.values()) filesBytes += f.size;
  const record = outputRecord(
    'sql',
    attribution.invocationId,
    put.id,
    bytes.length,
    read.files.size,
    { files_bytes: filesBytes, attributed_by: attribution.startedFrom, ...(attribution.finished ? { finished: true } : {}) },
    meta,
  );
  const wrote = await putOutputRecord(backend, record);
  if (cache) {
    cache.setLastTree({ id: put.id, depth: doc.depth, files: read.files } satisfies SqlTreeBase);
    await cache.save();
  }
  return {
    output: 'sql',
    status: wrote ? 'captured' : 'unchanged',
    invocation_id: attribution.invocationId,
    sha256: put.id,
    size: bytes.length,
    entries: read.files.size,
    stored_bytes: stored,
  };
}

async function hasFinishedTree(backend: Backend, invocationId: string): Promise<boolean> {
  const keys = (await listOutputRecordKeys(backend, invocationId)).filter((k) => /\/sql-[^/]*$/.test(k));
  if (keys.length === 0) return false;
  return (await readOutputRecords(backend, keys, () => undefined)).some((r) => r.output === 'sql' && r.detail.finished === true);
}

/** Stores the files the archive lacks; a file the base tree lists is known to be there. */
async function storeSqlFiles(backend: Backend, read: ReadSqlFiles, base: SqlTreeBase | null, targetDir: string): Promise<number> {
  let stored = 0;
  const known = new Set(base ? [...base.files.values()].map((f) => f.id) : []);
  // Several at once: each small file is a round of the thread pool (hash, gzip, write).
  await forEachLimited([...read.files], 8, async ([rel, file]) => {
    if (known.has(file.id) || (await hasBlob(backend, file.id))) return;
    known.add(file.id);
    const bytes = read.read.get(rel) ?? (await readVouched(`${targetDir}/${rel}`, file.id));
    stored += (await putBlob(backend, bytes, file.id)).storedBytes;
  });
  return stored;
}

async function readVouched(file: string, id: string): Promise<Buffer> {
  const bytes = await readRegularFile(file);
  if (sha256(bytes) !== id) throw new AtticError('artifact-unreadable', `${file} changed while it was being captured; capture again`);
  return bytes;
}

/** Every slice of dbt.log not yet filed; the attributed invocation's is reported even when it was. */
async function captureLog(
  backend: Backend,
  logDir: string,
  attribution: Attribution | null,
  memos: StatCache | undefined,
  meta: OutputMeta,
): Promise<CapturedOutput[]> {
  const identity = await logIdentity(logDir);
  if (identity === null || memos?.memo('log') === identity) return [];
  const { slices, skipped, resume } = await readLogSlices(logDir, logResumeOf(memos?.memo('log-resume')));
  const rows: CapturedOutput[] = skipped.map(({ file, reason }) => outputError('log', attribution?.invocationId ?? null, `${file} was left out: ${reason}`));
  for (const slice of slices) {
    const id = sha256(slice.bytes);
    const row: CapturedOutput = {
      output: 'log',
      status: 'unchanged',
      invocation_id: slice.invocationId,
      sha256: id,
      size: slice.bytes.length,
      entries: slice.lines,
      stored_bytes: 0,
    };
    const filed = await hasOutputRecord(backend, slice.invocationId, 'log', id);
    if (!filed && (await meta.isForgotten?.(slice.invocationId))) row.status = 'forgotten';
    else if (!filed) {
      row.stored_bytes = (await putBlob(backend, slice.bytes, id)).storedBytes;
      const record = outputRecord('log', slice.invocationId, id, slice.bytes.length, slice.lines, { log_format: slice.format }, meta);
      if (await putOutputRecord(backend, record)) row.status = 'captured';
    }
    if (row.status === 'captured' || slice.invocationId === attribution?.invocationId) rows.push(row);
  }
  memos?.setMemo('log', identity);
  memos?.setMemo('log-resume', resume);
  return rows;
}

/** The place a cache file kept, when it is one (the file is ours, but may be of another version). */
function logResumeOf(kept: unknown): LogResume | null {
  if (!kept || typeof kept !== 'object') return null;
  const { fileId, offset, head, headBytes } = kept as Record<string, unknown>;
  const count = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
  return typeof fileId === 'string' && typeof head === 'string' && count(offset) && count(headBytes) ? { fileId, offset, head, headBytes } : null;
}

function outputRecord(
  output: OutputRecord['output'],
  invocationId: string,
  id: string,
  size: number,
  entries: number,
  detail: OutputRecord['detail'],
  meta: OutputMeta,
): OutputRecord {
  return {
    kind: 'output',
    format: 1,
    output,
    invocation_id: invocationId,
    sha256: id,
    size,
    entries,
    detail,
    captured_at: meta.capturedAt.toISOString(),
    capture_id: meta.captureId,
    phase: meta.phase,
  };
}

function forgottenOutput(output: CapturedOutput['output'], invocationId: string): CapturedOutput {
  return { output, status: 'forgotten', invocation_id: invocationId, sha256: null, size: null, entries: 0, stored_bytes: 0 };
}

function outputError(output: CapturedOutput['output'], invocationId: string | null, error: string): CapturedOutput {
  return { output, status: 'error', invocation_id: invocationId, sha256: null, size: null, entries: 0, stored_bytes: 0, error };
}
