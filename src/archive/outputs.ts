import { AtticError } from '../errors.js';
import { isCapturePhase, type CapturePhase, type ObjectId } from '../vocab/index.js';
import type { Backend } from './backend.js';
import { OUTPUT_RECORDS_PREFIX, outputRecordKey } from './layout.js';
import { isOutputKind, type OutputKind } from './output-kind.js';
import { readKeys, type OnDamagedRecord } from './records.js';

/**
 * Outputs are what a dbt invocation leaves beside its artifacts, filed under that invocation:
 * - sql: the files it wrote under target/compiled and target/run, as one tree (sql-tree.ts);
 * - log: its slice of logs/dbt.log (JSON lines with its invocation_id, or the text lines from
 *   its start banner to the next one).
 * An output record names the blob (the tree document, or the log slice) by its SHA-256. A log
 * only grows while dbt writes it, so of several log records of one invocation the largest is
 * authoritative; of several trees, the newest capture's.
 */
export { OUTPUT_KINDS, isOutputKind, type OutputKind } from './output-kind.js';

export interface OutputRecord {
  kind: 'output';
  format: 1;
  output: OutputKind;
  invocation_id: string;
  sha256: ObjectId;
  /** Bytes of the blob: the tree document, or the log slice. */
  size: number;
  /** sql: files in the tree; log: lines in the slice. */
  entries: number;
  /** sql: bytes of the files the tree lists; log: the slice's format (json or text). */
  /** sql, finished: taken once the invocation had written its run_results, so no later file is its own. */
  detail: { files_bytes?: number; log_format?: 'json' | 'text' | 'mixed'; attributed_by?: string; finished?: boolean };
  captured_at: string;
  capture_id: string;
  phase: CapturePhase;
}

export async function putOutputRecord(backend: Backend, record: OutputRecord): Promise<boolean> {
  const key = outputRecordKey(record.invocation_id, record.output, record.sha256);
  return backend.putIfAbsent(key, Buffer.from(`${JSON.stringify(record, null, 2)}\n`));
}

export async function hasOutputRecord(backend: Backend, invocationId: string, output: OutputKind, sha: ObjectId): Promise<boolean> {
  return backend.has(outputRecordKey(invocationId, output, sha));
}

/** Keys only, as for artifact records: a reader compares them with what it has seen. */
export async function listOutputRecordKeys(backend: Backend, invocationId?: string): Promise<string[]> {
  const prefix = invocationId === undefined ? OUTPUT_RECORDS_PREFIX : outputRecordKey(invocationId, 'sql', '').replace(/sql-\.json$/, '');
  return (await backend.list(prefix)).map((k) => k.key).filter((k) => k.endsWith('.json'));
}

/** A damaged record is left out and handed to `onDamaged`, as for artifact records. */
export async function readOutputRecords(backend: Backend, keys: readonly string[], onDamaged?: OnDamagedRecord): Promise<OutputRecord[]> {
  const out = await readKeys(backend, keys, parseOutputRecord, onDamaged);
  return out.sort((a, b) => a.captured_at.localeCompare(b.captured_at) || a.sha256.localeCompare(b.sha256));
}

/** The record that counts for an invocation's output: the largest log slice, the newest tree. */
export function authoritativeOutput(records: readonly OutputRecord[], output: OutputKind): OutputRecord | null {
  const mine = records.filter((r) => r.output === output);
  const better = (a: OutputRecord, b: OutputRecord): boolean =>
    output === 'log'
      ? a.size > b.size || (a.size === b.size && a.captured_at > b.captured_at)
      : a.captured_at > b.captured_at || (a.captured_at === b.captured_at && a.sha256 > b.sha256);
  return mine.reduce<OutputRecord | null>((best, r) => (!best || better(r, best) ? r : best), null);
}

export function parseOutputRecord(key: string, bytes: Buffer): OutputRecord {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw unreadable(key, 'it is not valid JSON');
  }
  const str = (field: string): string => {
    if (typeof raw[field] !== 'string') throw unreadable(key, `'${field}' is not a string`);
    return raw[field] as string;
  };
  const num = (field: string): number => {
    if (typeof raw[field] !== 'number') throw unreadable(key, `'${field}' is not a number`);
    return raw[field] as number;
  };
  const output = str('output');
  const phase = str('phase');
  if (raw.kind !== 'output' || !isOutputKind(output)) throw unreadable(key, 'it is not an output record');
  if (!isCapturePhase(phase)) throw unreadable(key, `unknown phase '${phase}'`);
  const detail = raw.detail && typeof raw.detail === 'object' ? (raw.detail as OutputRecord['detail']) : {};
  return {
    kind: 'output',
    format: 1,
    output,
    invocation_id: str('invocation_id'),
    sha256: str('sha256'),
    size: num('size'),
    entries: num('entries'),
    detail,
    captured_at: str('captured_at'),
    capture_id: str('capture_id'),
    phase,
  };
}

function unreadable(key: string, why: string): AtticError {
  return new AtticError('archive-damaged', `Record ${key} is unreadable: ${why}. Run 'dbtattic verify'.`, { key });
}
