import { MemBackend } from '../../src/archive/backends/mem.js';
import { putArtifactRecord, putBlob, putCaptureRecord, type ArtifactRecord, type Backend } from '../../src/archive/index.js';
import type { ArtifactType } from '../../src/vocab/index.js';
import { syntheticManifest, syntheticRunResults, type SyntheticInvocation } from './synthetic-artifacts.js';

/**
 * Files synthetic invocations straight into an in-memory archive, as capture would (blob,
 * artifact record, capture record), so state's rules can be checked on histories made to order.
 */
export interface Filing extends SyntheticInvocation {
  /** Artifacts to file; default manifest and run_results. */
  artifacts?: ArtifactType[];
  /** The capture's time, which also names it. */
  capturedAt?: string;
  branch?: string | null;
  /** The status the capture record gives each artifact (another capture may have filed it a moment before). */
  status?: 'captured' | 'unchanged';
  /** An artifact's bytes made to order, instead of the synthetic ones. */
  bytes?: Partial<Record<ArtifactType, string>>;
}

export function newArchive(): MemBackend {
  return new MemBackend();
}

const SOURCES = (inv: SyntheticInvocation): string =>
  JSON.stringify({
    metadata: {
      dbt_schema_version: 'https://schemas.getdbt.com/dbt/sources/v3.json',
      dbt_version: '1.9.4',
      generated_at: inv.generatedAt,
      invocation_id: inv.invocationId,
    },
    results: [],
    elapsed_time: 0,
  });

function bytesOf(artifact: ArtifactType, inv: SyntheticInvocation): Buffer {
  switch (artifact) {
    case 'manifest':
      return Buffer.from(syntheticManifest(inv));
    case 'run_results':
      return Buffer.from(syntheticRunResults(inv));
    case 'sources':
      return Buffer.from(SOURCES(inv));
    default:
      throw new Error(`the archive builder does not make ${artifact}`);
  }
}

export async function file(backend: Backend, filing: Filing): Promise<Record<string, ArtifactRecord>> {
  const generatedAt = filing.generatedAt ?? '2026-01-02T03:04:05.678901Z';
  const capturedAt = filing.capturedAt ?? '2026-01-02T04:00:00.000Z';
  const captureId = `${Date.parse(capturedAt).toString(16).padStart(13, '0')}-${filing.invocationId.slice(0, 12).padEnd(12, '0')}`;
  const records: Record<string, ArtifactRecord> = {};
  for (const artifact of filing.artifacts ?? ['manifest', 'run_results']) {
    const bytes = filing.bytes?.[artifact] !== undefined ? Buffer.from(filing.bytes[artifact]!) : bytesOf(artifact, { ...filing, generatedAt });
    const put = await putBlob(backend, bytes);
    const record: ArtifactRecord = {
      kind: 'artifact',
      format: 1,
      invocation_id: filing.invocationId,
      invocation_id_source: 'metadata',
      artifact,
      sha256: put.id,
      size: bytes.length,
      dbt_schema_version: null,
      dbt_version: '1.9.4',
      generated_at: generatedAt,
      captured_at: capturedAt,
      capture_id: captureId,
      phase: 'post',
    };
    await putArtifactRecord(backend, record);
    records[artifact] = record;
  }
  await putCaptureRecord(backend, {
    kind: 'capture',
    format: 1,
    capture_id: captureId,
    phase: 'post',
    captured_at: capturedAt,
    tool_version: 'test',
    branch: filing.branch ?? null,
    context: {},
    run: null,
    artifacts: Object.values(records).map((r) => ({
      artifact: r.artifact,
      status: filing.status ?? 'captured',
      path: `target/${r.artifact}.json`,
      invocation_id: r.invocation_id,
      sha256: r.sha256,
      size: r.size,
      stored_bytes: 1,
    })),
  });
  return records;
}
