import type { ArchiveSummary } from '../answers/index.js';
import type { Backend } from './backend.js';
import { CAPTURE_RECORDS_PREFIX, CHUNKS_PREFIX, FILES_PREFIX, INVOCATION_RECORDS_PREFIX } from './layout.js';
import { listArtifactRecords } from './records.js';

export type { ArchiveSummary };

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
