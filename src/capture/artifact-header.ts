import { AtticError, isAtticError } from '../errors.js';
// detect.js, not the extract barrel: capture's start-up must not load the whole extract layer.
import { readHeader } from '../extract/detect.js';
import { JsonScanError, scanDocument } from '../json/scan.js';
import { sha256, type ArtifactType } from '../vocab/index.js';

/**
 * What capture needs to know about an artifact without parsing it whole: which invocation it
 * belongs to and which versions wrote it. The reading is extract's (one reader of artifact
 * headers, so what capture accepts is what ingest can tell apart); capture only words the
 * failures for a file in target/.
 */
export interface ArtifactHeader {
  invocationId: string | null;
  dbtSchemaVersion: string | null;
  dbtVersion: string | null;
  generatedAt: string | null;
  /** metadata.invocation_started_at (dbt 1.9+, Fusion): when the invocation began. */
  startedAt?: string | null;
}

export function readArtifactHeader(type: ArtifactType, bytes: Buffer): ArtifactHeader {
  let header: ReturnType<typeof readHeader>;
  try {
    header = readHeader(bytes, type);
  } catch (error) {
    throw unreadable(type, error);
  }
  const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
  return {
    invocationId: text(header.metadata.invocation_id),
    dbtSchemaVersion: header.schemaUrl,
    dbtVersion: text(header.metadata.dbt_version),
    generatedAt: header.generatedAt,
    startedAt: text(header.metadata.invocation_started_at),
  };
}

/** Checks the whole document is complete, well-formed JSON before we archive it. */
export function checkComplete(bytes: Buffer): void {
  try {
    scanDocument(bytes);
  } catch (error) {
    throw unreadable('artifact', error);
  }
}

/** Artifacts from before dbt 0.19 have no invocation id: one derived from their content is stable. */
export function contentInvocationId(bytes: Uint8Array): string {
  return `content-${sha256(bytes).slice(0, 32)}`;
}

function unreadable(what: string, error: unknown): AtticError {
  if (error instanceof JsonScanError && error.reason === 'limit') return new AtticError('artifact-unreadable', `it is ${error.message}`);
  if (error instanceof JsonScanError) return new AtticError('artifact-unreadable', `it is not complete JSON (${error.message})`);
  if (isAtticError(error) && typeof error.details.json === 'string')
    return new AtticError('artifact-unreadable', `it is not complete JSON (${error.details.json})`);
  if (isAtticError(error)) return error;
  return new AtticError('artifact-unreadable', `the ${what} could not be read: ${String(error)}`);
}
