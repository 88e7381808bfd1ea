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
  type DamagedRecord,
  type OnDamagedRecord,
  readChangeStamp,
  BlobsAhead,
} from '../../archive/index.js';
import { compareInstants, compareText, isArtifactType } from '../../vocab/index.js';
import { keepArchiveStamp } from './archive-stamp.js';
import { writeCaptureRows, readCapturesOf } from '../ingest/capture-rows.js';
import { inTransaction, type Database } from '../db/database.js';
import type { IngestProblem } from '../ingest/ingest-problem.js';
import { dropForgottenRows } from './forgotten.js';
import { changeFollowers } from '../derived/node-changes.js';
import { refreshDerivedTables, refreshDerivedTablesSideBySide } from '../derived/derived-tables.js';
import { takePrior, type CatchUpAhead } from './catch-up-ahead.js';
import { nothingCarried, type CarriedManifest } from '../ingest/prior-manifest.js';

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
export type CatchUpScope =
  | { all: true }
  | { captureIds: readonly string[] }
  | { captureKeys: readonly string[]; artifactKeys: readonly string[]; forgetKeys?: readonly string[] };

/**
 * Brings the store up to the archive: finds the records it has not seen by comparing keys
 * (listing keys is cheap; only new records are read), then re-ingests each invocation they touch.
 * Damage stays with what is damaged: an unreadable record is left out and listed in
 * ingest_problem, the rest is ingested; an invocation whose artifact was damaged is tried again
 * on each full catch-up, so a repair (`verify --repair`, capturing the original) reaches the store.
 */
export async function catchUp(
  db: Database,
  backend: Backend,
  onProgress?: ProgressFn,
  scope: CatchUpScope = { all: true },
  ahead?: CatchUpAhead,
): Promise<CatchUpReport> {
  const connection = db.connection;
  // Read before anything is listed: a record filed from here on changes it (archive-stamp.ts).
  const stamp = 'all' in scope ? await readChangeStamp(backend) : null;
  // Forgotten invocations leave first (store/sync/forgotten.ts); right after a capture, not at all.
  await dropForgottenRows(connection, backend, 'all' in scope ? scope : { keys: 'forgetKeys' in scope ? (scope.forgetKeys ?? []) : [] });
  const damaged: DamagedRecord[] = [];
  const onDamaged = (damage: DamagedRecord): void => void damaged.push(damage);
  const full = 'all' in scope;
  const [newArtifacts, newCaptures] = await unseenRecords(connection, backend, scope, onDamaged);
  // Output records are found through the captures that filed them; a full catch-up also lists them.
  const newOutputs = full ? await unseenOutputRecords(connection, backend, onDamaged) : [];
  if (newCaptures.length > 0) await inTransaction(connection, () => writeCaptureRows(connection, newCaptures));
  const touched = touchedInvocations(newArtifacts, newCaptures, newOutputs, full ? await damagedInvocations(connection) : []);
  const problems = touched.length > 0 ? await ingestTouched(db, backend, touched, onProgress, ahead) : [];
  await refreshUnmatched(connection);
  // Only a full catch-up has seen every damaged record, so only it may replace the list.
  if (full) problems.push(...(await recordDamagedRecords(connection, damaged)));
  if (full) await keepArchiveStamp(connection, stamp);
  return { invocations: touched.length, captures: newCaptures.length, problems };
}

/**
 * Invocations whose results ingest read but run history has not matched: a catch-up killed
 * between the two, or whose refresh failed (the writer's memory), left them
 * (schema/001-tables.sql, run_result_pending). Their rows are in the store; the tables derived
 * from them are refreshed now, without reading their artifacts again.
 */
async function refreshUnmatched(connection: DuckDBConnection): Promise<void> {
  const ids = (await connection.runAndReadAll('SELECT DISTINCT invocation_id FROM run_result_pending ORDER BY 1')).getRows().map(([id]) => String(id));
  if (ids.length === 0) return;
  const changedFrom = [...ids, ...(await changeFollowers(connection, ids))];
  await inTransaction(connection, () => refreshDerivedTables(connection, ids, changedFrom));
}

/**
 * Ingest (and the extract layer under it) is loaded only when there is something to ingest: a
 * reading command on a current store pays nothing for it at start-up.
 */
async function ingestTouched(
  db: Database,
  backend: Backend,
  touched: readonly string[],
  onProgress?: ProgressFn,
  ahead?: CatchUpAhead,
): Promise<IngestProblem[]> {
  const [{ ingestInvocation, newestPerArtifact }, { VersionWriter }] = await Promise.all([
    import('../ingest/ingest.js'),
    import('../ingest/version-writer.js'),
  ]);
  const versions = ahead?.versions ?? (await VersionWriter.open(await db.connect()));
  const side = await db.connect();
  const problems: IngestProblem[] = [];
  // The next invocation's records and artifacts are read while this one is ingested.
  const blobs = new BlobsAhead(backend);
  // Only a catch-up of several has a next invocation to carry a manifest to: the one after a capture does not.
  const carried: CarriedManifest | undefined = touched.length > 1 ? nothingCarried() : undefined;
  const recordsOf = (k: number): Promise<ArtifactRecord[]> | undefined => {
    if (k >= touched.length) return undefined;
    const listing = listInvocationRecords(backend, touched[k]!);
    listing.then(
      (records) => blobs.start(newestPerArtifact(records).map((r) => r.sha256)),
      () => undefined,
    );
    return listing;
  };
  let listing = recordsOf(0);
  let done = 0;
  try {
    for (let i = 0; i < touched.length; i += INGEST_BATCH) {
      const batch = touched.slice(i, i + INGEST_BATCH);
      // The manifests after each touched one compare with it: their change rows are derived again.
      const changedFrom = [...batch];
      for (const invocationId of batch) {
        changedFrom.push(...(await changeFollowers(db.connection, [invocationId])));
        const records = await listing!;
        done += 1;
        listing = recordsOf(done);
        const captures = await readCapturesOf(db.connection, invocationId);
        problems.push(
          ...(await ingestInvocation(db.connection, versions, backend, {
            invocationId,
            records,
            captures,
            prior: takePrior(ahead, invocationId),
            blobs,
            carried,
          })),
        );
        onProgress?.(done, touched.length);
      }
      await refreshDerivedTablesSideBySide(db.connection, side, batch, changedFrom);
    }
  } finally {
    blobs.forget();
  }
  return problems;
}

/**
 * Invocations ingested before the tables derived across invocations are refreshed, in one
 * transaction (derived-tables.ts). A rebuild of 10,000 nodes x 200 runs refreshed all of them at once and ran out of
 * the writer's memory; the refreshes give the same rows whatever batches the invocations arrive
 * in (as when they are filed a few at a time), and batches in the order they were first captured
 * are mostly later than everything before them, the cheap case for each refresh.
 */
const INGEST_BATCH = 25;

function unseenRecords(
  connection: DuckDBConnection,
  backend: Backend,
  scope: CatchUpScope,
  onDamaged: OnDamagedRecord,
): Promise<[ArtifactRecord[], CaptureRecord[]]> {
  if ('captureIds' in scope) return Promise.all([[], unseenOf(connection, backend, scope.captureIds.map(captureRecordKey), onDamaged)]);
  if ('captureKeys' in scope)
    return Promise.all([
      unseenArtifactRecords(connection, backend, onDamaged, scope.artifactKeys),
      unseenOf(connection, backend, scope.captureKeys, onDamaged),
    ]);
  return Promise.all([unseenArtifactRecords(connection, backend, onDamaged), unseenCaptureRecords(connection, backend, onDamaged)]);
}

/**
 * How many records the store has not taken in, for a reader that cannot catch up (the store is
 * read-only to it): listing keys is cheap, and no record is read. Known damaged records count as seen.
 */
export async function countUnseenRecords(connection: DuckDBConnection, backend: Backend): Promise<number> {
  const damaged = new Set(
    (await connection.runAndReadAll('SELECT archive_key FROM ingest_problem WHERE archive_key IS NOT NULL')).getRows().map(([key]) => String(key)),
  );
  const [artifactKeys, captureKeys] = await Promise.all([
    unseenArtifactKeys(connection, backend),
    unseenCaptureKeys(connection, await listCaptureRecordKeys(backend)),
  ]);
  return [...artifactKeys, ...captureKeys].filter((key) => !damaged.has(key)).length;
}

/** Artifact records not yet ingested, among `keys` (a journal's) or among all in the archive. */
async function unseenArtifactRecords(
  connection: DuckDBConnection,
  backend: Backend,
  onDamaged: OnDamagedRecord,
  keys?: readonly string[],
): Promise<ArtifactRecord[]> {
  return readArtifactRecords(backend, await unseenArtifactKeys(connection, backend, keys), onDamaged);
}

async function unseenArtifactKeys(connection: DuckDBConnection, backend: Backend, keys?: readonly string[]): Promise<string[]> {
  const seen = new Set<string>();
  const rows = (await connection.runAndReadAll('SELECT invocation_id, artifact_type, object_id FROM artifact_capture')).getRows();
  for (const [invocationId, artifact, objectId] of rows) {
    if (typeof artifact === 'string' && isArtifactType(artifact)) seen.add(artifactRecordKey(String(invocationId), artifact, String(objectId)));
  }
  const candidates = keys ?? (await listArtifactRecordKeys(backend));
  return [...new Set(candidates)].filter((key) => !seen.has(key));
}

async function unseenOutputRecords(connection: DuckDBConnection, backend: Backend, onDamaged: OnDamagedRecord): Promise<OutputRecord[]> {
  const rows = (await connection.runAndReadAll('SELECT invocation_id, output, object_id FROM invocation_output')).getRows();
  const seen = new Set(rows.map(([invocationId, output, objectId]) => outputRecordKey(String(invocationId), String(output), String(objectId))));
  return readOutputRecords(
    backend,
    (await listOutputRecordKeys(backend)).filter((key) => !seen.has(key)),
    onDamaged,
  );
}

async function unseenCaptureRecords(connection: DuckDBConnection, backend: Backend, onDamaged: OnDamagedRecord): Promise<CaptureRecord[]> {
  return unseenOf(connection, backend, await listCaptureRecordKeys(backend), onDamaged);
}

async function unseenOf(connection: DuckDBConnection, backend: Backend, keys: readonly string[], onDamaged: OnDamagedRecord): Promise<CaptureRecord[]> {
  return readCaptureRecords(backend, await unseenCaptureKeys(connection, keys), onDamaged);
}

async function unseenCaptureKeys(connection: DuckDBConnection, keys: readonly string[]): Promise<string[]> {
  const seen = new Set((await connection.runAndReadAll('SELECT capture_id FROM capture')).getRows().map(([id]) => String(id)));
  return [...new Set(keys)].filter((key) => !seen.has(decodeURIComponent(key.slice(key.lastIndexOf('/') + 1, -'.json'.length))));
}

/** Invocations left incomplete by damaged archive bytes, with when each was first captured. */
async function damagedInvocations(connection: DuckDBConnection): Promise<FirstCaptured[]> {
  const reader = await connection.runAndReadAll(
    `SELECT p.invocation_id, epoch_ms(min(a.captured_at)) AS at FROM ingest_problem p JOIN artifact_capture a USING (invocation_id)
     WHERE p.kind = 'damaged' AND p.archive_key IS NULL GROUP BY p.invocation_id`,
  );
  return reader.getRows().map(([id, ms]) => ({ invocationId: String(id), at: new Date(Number(ms)).toISOString() }));
}

/** Replaces the list of damaged records with the one this catch-up found. */
async function recordDamagedRecords(connection: DuckDBConnection, damaged: readonly DamagedRecord[]): Promise<IngestProblem[]> {
  const problems = damaged.map(
    (d): IngestProblem => ({
      invocation_id: d.invocation_id,
      artifact_type: d.artifact,
      object_id: d.object_id,
      kind: 'damaged',
      archive_key: d.key,
      message: d.message,
    }),
  );
  // Nothing damaged now nor before: no write transaction on every read.
  if (problems.length === 0 && !(await hasDamagedRecords(connection))) return problems;
  const { insertProblems } = await import('../ingest/ingest.js');
  await inTransaction(connection, async () => {
    await connection.run('DELETE FROM ingest_problem WHERE archive_key IS NOT NULL');
    await insertProblems(connection, problems);
  });
  return problems;
}

async function hasDamagedRecords(connection: DuckDBConnection): Promise<boolean> {
  return (await connection.runAndReadAll('SELECT 1 FROM ingest_problem WHERE archive_key IS NOT NULL LIMIT 1')).getRows().length > 0;
}

interface FirstCaptured {
  invocationId: string;
  at: string;
}

/** In the order they were first captured, so fill-in columns come out as they would live. */
function touchedInvocations(
  artifacts: readonly ArtifactRecord[],
  captures: readonly CaptureRecord[],
  outputs: readonly OutputRecord[],
  retries: readonly FirstCaptured[],
): string[] {
  const first = new Map<string, string>();
  const note = (id: string, at: string): void => {
    const held = first.get(id);
    if (held === undefined || compareInstants(at, held) < 0) first.set(id, at);
  };
  for (const r of artifacts) note(r.invocation_id, r.captured_at);
  for (const c of captures)
    for (const a of [...c.artifacts, ...(c.outputs ?? [])])
      if (a.invocation_id && (a.status === 'captured' || a.status === 'repaired')) note(a.invocation_id, c.captured_at);
  for (const r of outputs) note(r.invocation_id, r.captured_at);
  for (const r of retries) note(r.invocationId, r.at);
  return [...first.entries()].sort((a, b) => compareInstants(a[1], b[1]) || compareText(a[0], b[0])).map(([id]) => id);
}
