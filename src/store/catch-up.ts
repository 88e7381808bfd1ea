import type { DuckDBConnection } from '@duckdb/node-api';
import {
  artifactRecordKey,
  captureRecordKey,
  listArtifactRecordKeys,
  listCaptureRecordKeys,
  listInvocationRecords,
  listOutputRecordKeys,
  outputRecordKey,
  readOutputRecords,
  type OutputRecord,
  readArtifactRecords,
  readCaptureRecords,
  type ArtifactRecord,
  type Backend,
  type CaptureRecord,
} from '../archive/index.js';
import { compareInstants, compareText, isArtifactType } from '../vocab/index.js';
import { writeCaptureRows, readCapturesOf } from './capture-rows.js';
import { inTransaction, type Database } from './database.js';
import { VersionWriter } from './version-writer.js';
import { ingestInvocation, type IngestProblem } from './ingest.js';

export interface CatchUpReport {
  invocations: number;
  captures: number;
  problems: IngestProblem[];
}

export type ProgressFn = (done: number, total: number) => void;

/**
 * Which records to look at: everything the store has not seen (reading commands, rebuild), or
 * only what named captures filed (right after a capture: listing the whole archive would cost
 * time that grows with history, in front of a dbt command; what is missed is caught up by the
 * next reading command).
 */
export type CatchUpScope = { all: true } | { captureIds: readonly string[] } | { captureKeys: readonly string[]; artifactKeys: readonly string[] };

/**
 * Brings the store up to the archive: finds the records it has not seen by comparing keys
 * (listing keys is cheap; only new records are read), then re-ingests each invocation they touch.
 */
export async function catchUp(db: Database, backend: Backend, onProgress?: ProgressFn, scope: CatchUpScope = { all: true }): Promise<CatchUpReport> {
  const connection = db.connection;
  const [newArtifacts, newCaptures] = await unseenRecords(connection, backend, scope);
  // Output records are found through the captures that filed them; a full catch-up also lists them.
  const newOutputs = 'all' in scope ? await unseenOutputRecords(connection, backend) : [];
  if (newCaptures.length > 0) await inTransaction(connection, () => writeCaptureRows(connection, newCaptures));
  const touched = touchedInvocations(newArtifacts, newCaptures, newOutputs);
  const problems: IngestProblem[] = [];
  const versions = touched.length > 0 ? await VersionWriter.open(await db.connect()) : null;
  let done = 0;
  for (const invocationId of touched) {
    const records = await listInvocationRecords(backend, invocationId);
    const captures = await readCapturesOf(connection, invocationId);
    problems.push(...(await ingestInvocation(connection, versions!, backend, { invocationId, records, captures })));
    onProgress?.(++done, touched.length);
  }
  return { invocations: touched.length, captures: newCaptures.length, problems };
}

function unseenRecords(connection: DuckDBConnection, backend: Backend, scope: CatchUpScope): Promise<[ArtifactRecord[], CaptureRecord[]]> {
  if ('captureIds' in scope) return Promise.all([[], unseenOf(connection, backend, scope.captureIds.map(captureRecordKey))]);
  if ('captureKeys' in scope) return Promise.all([unseenArtifactRecords(connection, backend, scope.artifactKeys), unseenOf(connection, backend, scope.captureKeys)]);
  return Promise.all([unseenArtifactRecords(connection, backend), unseenCaptureRecords(connection, backend)]);
}

/** Artifact records not yet ingested, among `keys` (a journal's) or among all in the archive. */
async function unseenArtifactRecords(connection: DuckDBConnection, backend: Backend, keys?: readonly string[]): Promise<ArtifactRecord[]> {
  const seen = new Set<string>();
  const rows = (await connection.runAndReadAll('SELECT invocation_id, artifact_type, object_id FROM artifact_capture')).getRows();
  for (const [invocationId, artifact, objectId] of rows) {
    if (typeof artifact === 'string' && isArtifactType(artifact)) seen.add(artifactRecordKey(String(invocationId), artifact, String(objectId)));
  }
  const candidates = keys ?? (await listArtifactRecordKeys(backend));
  return readArtifactRecords(backend, [...new Set(candidates)].filter((key) => !seen.has(key)));
}

async function unseenOutputRecords(connection: DuckDBConnection, backend: Backend): Promise<OutputRecord[]> {
  const rows = (await connection.runAndReadAll('SELECT invocation_id, output, object_id FROM invocation_output')).getRows();
  const seen = new Set(rows.map(([invocationId, output, objectId]) => outputRecordKey(String(invocationId), String(output), String(objectId))));
  return readOutputRecords(backend, (await listOutputRecordKeys(backend)).filter((key) => !seen.has(key)));
}

async function unseenCaptureRecords(connection: DuckDBConnection, backend: Backend): Promise<CaptureRecord[]> {
  return unseenOf(connection, backend, await listCaptureRecordKeys(backend));
}

async function unseenOf(connection: DuckDBConnection, backend: Backend, keys: readonly string[]): Promise<CaptureRecord[]> {
  const seen = new Set((await connection.runAndReadAll('SELECT capture_id FROM capture')).getRows().map(([id]) => String(id)));
  const unseen = [...new Set(keys)].filter((key) => !seen.has(decodeURIComponent(key.slice(key.lastIndexOf('/') + 1, -'.json'.length))));
  return readCaptureRecords(backend, unseen);
}

/** In the order they were first captured, so fill-in columns come out as they would live. */
function touchedInvocations(artifacts: readonly ArtifactRecord[], captures: readonly CaptureRecord[], outputs: readonly OutputRecord[]): string[] {
  const first = new Map<string, string>();
  const note = (id: string, at: string): void => {
    const held = first.get(id);
    if (held === undefined || compareInstants(at, held) < 0) first.set(id, at);
  };
  for (const r of artifacts) note(r.invocation_id, r.captured_at);
  for (const c of captures) for (const a of [...c.artifacts, ...(c.outputs ?? [])]) if (a.invocation_id && a.status === 'captured') note(a.invocation_id, c.captured_at);
  for (const r of outputs) note(r.invocation_id, r.captured_at);
  return [...first.entries()].sort((a, b) => compareInstants(a[1], b[1]) || compareText(a[0], b[0])).map(([id]) => id);
}
