import type { Database } from '../db/database.js';
import type { PriorReading } from '../ingest/prior-manifest.js';
import type { VersionWriter } from '../ingest/version-writer.js';

/**
 * What the catch-up after a capture reads before it ingests anything, read while the capture is
 * still writing the archive: the versions the store holds and the manifest stored before. Both
 * are DuckDB's work (about 0.4 s at 10,000 nodes), which runs on the other core beside the
 * capture's hashing and chunking instead of after it. The store is held from here on, so nobody
 * writes it between this reading and the ingest that uses it.
 */
export interface CatchUpAhead {
  db: Database;
  versions: VersionWriter;
  /** The prior manifest as read for `invocationId`: what ingest would read for it first thing. */
  prior: { invocationId: string; reading: PriorReading } | null;
}

/** `invocationId`: the invocation whose manifest the capture is filing, ingested first. */
export async function readAhead(db: Database, invocationId: string | null): Promise<CatchUpAhead> {
  // Loaded here, as catch-up.ts loads them: a reading command on a current store never needs them.
  const [{ VersionWriter }, { readPriorManifest }] = await Promise.all([import('../ingest/version-writer.js'), import('../ingest/prior-manifest.js')]);
  const [versions, reading] = await Promise.all([
    db.connect().then((side) => VersionWriter.open(side)),
    invocationId === null ? null : readPriorManifest(db.connection, invocationId),
  ]);
  return { db, versions, prior: invocationId === null || reading === null ? null : { invocationId, reading } };
}

/**
 * The prior reading for the invocation about to be ingested, once: it is what the store held
 * before anything was ingested, so it holds only for the first invocation the catch-up ingests.
 */
export function takePrior(ahead: CatchUpAhead | undefined, invocationId: string): PriorReading | undefined {
  const prior = ahead?.prior;
  if (ahead) ahead.prior = null;
  return prior?.invocationId === invocationId ? prior.reading : undefined;
}
