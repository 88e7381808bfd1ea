import type { Backend } from './backend.js';
import { CAPTURE_RECORDS_PREFIX, CHUNKS_PREFIX, FILES_PREFIX, INVOCATION_RECORDS_PREFIX } from './layout.js';
import { listArtifactRecords } from './records.js';

export interface ArchiveSummary {
  location: string;
  invocations: number;
  artifactRecords: number;
  captureRecords: number;
  files: number;
  chunks: number;
  /** Sum of the sizes of the distinct artifacts archived, as dbt wrote them. */
  logicalBytes: number;
  /** What the archive occupies: compressed chunks, file indexes and records. */
  storedBytes: number;
}

export async function summarizeArchive(backend: Backend): Promise<ArchiveSummary> {
  const [chunks, files, captures, recordKeys, records] = await Promise.all([
    backend.list(CHUNKS_PREFIX),
    backend.list(FILES_PREFIX),
    backend.list(CAPTURE_RECORDS_PREFIX),
    backend.list(INVOCATION_RECORDS_PREFIX),
    listArtifactRecords(backend),
  ]);
  const sizes = new Map(records.map((r) => [r.sha256, r.size]));
  const sum = (entries: { size: number }[]): number => entries.reduce((total, e) => total + e.size, 0);
  return {
    location: backend.location,
    invocations: new Set(records.map((r) => r.invocation_id)).size,
    artifactRecords: records.length,
    captureRecords: captures.length,
    files: files.length,
    chunks: chunks.length,
    logicalBytes: [...sizes.values()].reduce((a, b) => a + b, 0),
    storedBytes: sum(chunks) + sum(files) + sum(captures) + sum(recordKeys),
  };
}
