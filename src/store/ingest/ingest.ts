import type { DuckDBConnection } from '@duckdb/node-api';
import { BlobsAhead, compareArtifactRecords, type ArtifactRecord, type Backend, type CaptureRecord } from '../../archive/index.js';
import { AtticError, isAtticError } from '../../errors.js';
import { mergeInvocationFacts, type ArtifactInvocationFacts } from '../../extract/index.js';
import { normaliseInstant, type ArtifactType } from '../../vocab/index.js';
import { appendArtifactRows, closeAppenders, openAppenders, PER_INVOCATION_TABLES } from './artifact-rows.js';
import { captureFacts } from './capture-facts.js';
import { inTransaction, isOutOfMemory, WRITE_MEMORY_LIMIT } from '../db/database.js';
import { writeInvocationRow } from './invocation-row.js';
import type { IngestProblem } from './ingest-problem.js';
import { writeOutputRows } from './output-rows.js';
import { readPriorManifest, type CarriedManifest, type PriorReading } from './prior-manifest.js';
import { dropOrphanEntries } from './entry-memo.js';
import type { VersionWriter } from './version-writer.js';

/**
 * The one writer of per-invocation rows. An invocation is ingested as a whole, in one
 * transaction: its rows are deleted and re-derived from its newest artifacts. That makes ingest
 * idempotent, makes a late artifact (the manifest a `dbt run` rewrites at its end) simply
 * replace what came before, and costs the invocation's own size, never the history's.
 */
export interface InvocationInput {
  invocationId: string;
  /** Every artifact record filed under the invocation. */
  records: ArtifactRecord[];
  /** Capture records that captured any of its artifacts. */
  captures: CaptureRecord[];
  /** The prior manifest, when it was read already (catch-up-ahead.ts); else it is read here. */
  prior?: PriorReading;
  /** Where its artifacts' bytes come from when a catch-up reads them ahead; else the archive. */
  blobs?: BlobsAhead;
  /** What the manifest ingested before in the same catch-up said (prior-manifest.ts); its own is left here. */
  carried?: CarriedManifest;
}

export async function ingestInvocation(
  connection: DuckDBConnection,
  versions: VersionWriter,
  backend: Backend,
  input: InvocationInput,
): Promise<IngestProblem[]> {
  const problems: IngestProblem[] = [];
  const skip = new Set<string>();
  const manifestReplaced = await replacesManifest(connection, input);
  for (;;) {
    try {
      await inTransaction(connection, () => writeInvocation(connection, versions, backend, input, skip));
      break;
    } catch (error) {
      const failed = (error as { record?: ArtifactRecord }).record;
      const kind = problemKind(error);
      // Only an artifact that cannot be read is left out (its schema is newer than this
      // dbtattic, or its bytes in the archive are damaged): it must not hide the others. Anything
      // else (a DuckDB error) aborts, so the invocation stays unseen and the next sync retries.
      if (!failed || skip.has(failed.sha256) || !kind) throw error;
      skip.add(failed.sha256);
      problems.push({
        invocation_id: input.invocationId,
        artifact_type: failed.artifact,
        object_id: failed.sha256,
        kind,
        archive_key: null,
        message: (error as Error).message,
      });
    }
  }
  // After the invocation's transaction: node versions are committed beside it, on their own
  // connection, and a file is matched to its node through them.
  problems.push(...(await inTransaction(connection, () => writeOutputRows(connection, backend, input.invocationId))));
  await recordProblems(connection, input.invocationId, problems);
  if (manifestReplaced) {
    await dropUnheldVersions(connection);
    await versions.forgetWritten();
  }
  return problems;
}

/**
 * DuckDB cannot allocate a value larger than the writer's memory (a string of hundreds of MB in
 * one field): that artifact is left out as unreadable, the rest of the invocation is stored.
 */
function asTooLarge(error: unknown, record: ArtifactRecord): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (!isOutOfMemory(error)) return error instanceof Error ? error : new Error(message);
  return new AtticError(
    'artifact-unreadable',
    `The ${record.artifact} holds a value too large for the store's writer memory (DBTATTIC_STORE_MEMORY_LIMIT=${WRITE_MEMORY_LIMIT}): ${message.split('\n')[0]}. ` +
      'It stays in the archive: raise DBTATTIC_STORE_MEMORY_LIMIT and run dbtattic rebuild.',
  );
}

function problemKind(error: unknown): IngestProblem['kind'] | null {
  if (!isAtticError(error)) return null;
  if (error.code === 'artifact-unreadable' || error.code === 'unknown-schema-version') return 'unreadable';
  return error.code === 'archive-damaged' ? 'damaged' : null;
}

/**
 * True when the invocation had a manifest in the store and a different one has been filed
 * since (dbt rewrote it): the versions only the old one held must go, for the store to equal
 * what a rebuild derives. Checked per invocation, so a new invocation costs nothing here.
 */
async function replacesManifest(connection: DuckDBConnection, input: InvocationInput): Promise<boolean> {
  const stored = (
    await connection.runAndReadAll("SELECT object_id FROM artifact_capture WHERE invocation_id = $1 AND artifact_type = 'manifest'", [input.invocationId])
  )
    .getRows()
    .map(([id]) => String(id));
  if (stored.length === 0) return false;
  return input.records.some((r) => r.artifact === 'manifest' && !stored.includes(r.sha256));
}

async function writeInvocation(
  connection: DuckDBConnection,
  versions: VersionWriter,
  backend: Backend,
  input: InvocationInput,
  skip: Set<string>,
): Promise<void> {
  // An invocation known only from dbt.log (a `dbt debug`) has outputs (below) and no invocation row.
  if (input.records.length === 0) return;
  // run_history keeps the results once matched (schema/001-tables.sql): read again, they are pending again.
  for (const table of [...PER_INVOCATION_TABLES, 'run_history', 'artifact_capture', 'invocation']) {
    await connection.run(`DELETE FROM ${table} WHERE invocation_id = $1`, [input.invocationId]);
  }
  await writeArtifactCaptures(connection, input.records);
  const facts: ArtifactInvocationFacts[] = [];
  const prior = input.records.some((r) => r.artifact === 'manifest')
    ? (input.prior ?? (await readPriorManifest(connection, input.invocationId, input.carried)))
    : undefined;
  const appenders = await openAppenders(connection);
  const blobs = input.blobs ?? new BlobsAhead(backend);
  try {
    for (const record of newestPerArtifact(input.records)) {
      if (skip.has(record.sha256)) continue;
      // Flushed per artifact, so a version that does not fit is charged to the artifact holding it.
      const appended = appendArtifactRows(connection, blobs, record, appenders, versions, prior, input.carried).then(
        async (rows) => (await versions.flush(), rows),
      );
      facts.push(
        await appended.catch((error: unknown) => {
          throw Object.assign(asTooLarge(error, record), { record });
        }),
      );
    }
  } finally {
    closeAppenders(appenders);
  }
  const merged = facts.length > 0 ? mergeInvocationFacts(facts) : null;
  await writeInvocationRow(connection, input.invocationId, merged, captureFacts(input.invocationId, input.records, input.captures, merged));
}

/** dbt can rewrite an artifact within one invocation; the newest write is the one that counts. */
export function newestPerArtifact(records: readonly ArtifactRecord[]): ArtifactRecord[] {
  const newest = new Map<ArtifactType, ArtifactRecord>();
  for (const record of records) {
    const held = newest.get(record.artifact);
    if (!held || compareArtifactRecords(record, held) > 0) newest.set(record.artifact, record);
  }
  return [...newest.values()];
}

/**
 * A version stays while some invocation holds it. Re-ingesting an invocation (dbt rewrote its
 * manifest) can leave versions that only the replaced manifest held; a rebuild, which reads only
 * the newest, would not have them, and the store must equal what a rebuild derives.
 */
export async function dropUnheldVersions(connection: DuckDBConnection): Promise<void> {
  // Blocks first: what the remaining blocks hold is what the remaining invocations hold.
  await connection.run('DELETE FROM node_block WHERE block_id NOT IN (SELECT block_id FROM invocation_node_block)');
  await connection.run('DELETE FROM macro_set WHERE macro_set_id NOT IN (SELECT macro_set_id FROM node_block WHERE macro_set_id IS NOT NULL)');
  await connection.run('DELETE FROM node_version WHERE node_version_id NOT IN (SELECT node_version_id FROM node_block)');
  await connection.run('DELETE FROM node_version_edge WHERE node_version_id NOT IN (SELECT node_version_id FROM node_version)');
  await connection.run('DELETE FROM macro_version WHERE macro_version_id NOT IN (SELECT macro_version_id FROM macro_invocation)');
  await connection.run('DELETE FROM compiled_code WHERE compiled_code_id NOT IN (SELECT compiled_code_id FROM node_block WHERE compiled_code_id IS NOT NULL)');
  await dropOrphanEntries(connection);
}

async function writeArtifactCaptures(connection: DuckDBConnection, records: readonly ArtifactRecord[]): Promise<void> {
  for (const r of records) {
    await connection.run('INSERT INTO artifact_capture VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)', [
      r.invocation_id,
      r.artifact,
      r.sha256,
      r.size,
      r.dbt_schema_version,
      r.dbt_version,
      normaliseInstant(r.generated_at),
      normaliseInstant(r.captured_at),
      r.capture_id,
      r.phase,
      r.invocation_id_source,
    ]);
  }
}

async function recordProblems(connection: DuckDBConnection, invocationId: string, problems: IngestProblem[]): Promise<void> {
  await connection.run('DELETE FROM ingest_problem WHERE invocation_id = $1 AND archive_key IS NULL', [invocationId]);
  await insertProblems(connection, problems);
}

export async function insertProblems(connection: DuckDBConnection, problems: readonly IngestProblem[]): Promise<void> {
  for (const p of problems) {
    await connection.run('INSERT INTO ingest_problem VALUES ($1, $2, $3, $4, $5, $6)', [
      p.invocation_id,
      p.artifact_type,
      p.object_id,
      p.kind,
      p.archive_key,
      p.message,
    ]);
  }
}
