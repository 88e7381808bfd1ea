import { compareArtifactRecords, listArtifactRecords, type ArtifactRecord, type Backend } from '../archive/index.js';
import type { ArtifactType } from '../vocab/index.js';

/** The newest record of each artifact type of one invocation. */
export interface ArchivedInvocation {
  invocationId: string;
  artifacts: Partial<Record<ArtifactType, ArtifactRecord>>;
  /** When dbt finished it: run_results' generated_at, else the newest artifact's. */
  generatedAt: string;
}

/** Groups artifact records by invocation, newest invocation first. */
export async function listArchivedInvocations(backend: Backend): Promise<ArchivedInvocation[]> {
  const byId = new Map<string, ArchivedInvocation>();
  for (const record of await listArtifactRecords(backend)) {
    const invocation = byId.get(record.invocation_id) ?? { invocationId: record.invocation_id, artifacts: {}, generatedAt: '' };
    const held = invocation.artifacts[record.artifact];
    if (!held || compareArtifactRecords(record, held) > 0) invocation.artifacts[record.artifact] = record;
    byId.set(record.invocation_id, invocation);
  }
  const invocations = [...byId.values()].map((inv) => ({ ...inv, generatedAt: generatedAtOf(inv) }));
  return invocations.sort((a, b) => sortableTime(b.generatedAt).localeCompare(sortableTime(a.generatedAt)) || b.invocationId.localeCompare(a.invocationId));
}

function generatedAtOf(invocation: ArchivedInvocation): string {
  const runResults = invocation.artifacts.run_results;
  if (runResults?.generated_at) return runResults.generated_at;
  const times = Object.values(invocation.artifacts).map((r) => r.generated_at ?? r.captured_at);
  return times.sort((a, b) => sortableTime(a).localeCompare(sortableTime(b))).at(-1) ?? '';
}

/** dbt writes UTC times with or without a trailing 'Z' and up to nanoseconds: compare them bare. */
function sortableTime(value: string): string {
  return value.replace(/Z$/i, '');
}
