import {
  compareArtifactRecords,
  listArtifactRecords,
  listCaptureRecordKeys,
  listInvocationRecords,
  readCaptureRecords,
  type ArtifactRecord,
  type Backend,
} from '../archive/index.js';
import { compareInstants, compareText, parseInstant, type ArtifactType } from '../vocab/index.js';

/** The newest record of each artifact type of one invocation. */
export interface ArchivedInvocation {
  invocationId: string;
  artifacts: Partial<Record<ArtifactType, ArtifactRecord>>;
  /** When dbt finished it: run_results' generated_at, else the newest artifact's. */
  generatedAt: string;
}

/** Groups artifact records by invocation, newest invocation first. */
export async function listArchivedInvocations(backend: Backend): Promise<ArchivedInvocation[]> {
  return groupByInvocation(await listArtifactRecords(backend));
}

/**
 * Invocations newest capture first, with the branch of the capture that filed them, read a
 * capture at a time: in object storage, where every record read is a request, `state` stops
 * at the first success instead of reading the whole archive. Captures are listed by key only.
 */
export async function* recentInvocations(backend: Backend): AsyncGenerator<ArchivedInvocation & { branch: string | null }> {
  const keys = (await listCaptureRecordKeys(backend)).sort().reverse();
  const seen = new Set<string>();
  for (const key of keys) {
    const [capture] = await readCaptureRecords(backend, [key]);
    for (const artifact of capture?.artifacts ?? []) {
      const id = artifact.invocation_id;
      if (artifact.status !== 'captured' || !id || seen.has(id)) continue;
      seen.add(id);
      const invocation = await readInvocation(backend, id);
      if (invocation) yield { ...invocation, branch: capture!.branch };
    }
  }
}

export async function readInvocation(backend: Backend, invocationId: string): Promise<ArchivedInvocation | undefined> {
  return groupByInvocation(await listInvocationRecords(backend, invocationId))[0];
}

function groupByInvocation(records: ArtifactRecord[]): ArchivedInvocation[] {
  const byId = new Map<string, ArchivedInvocation>();
  for (const record of records) {
    const invocation = byId.get(record.invocation_id) ?? { invocationId: record.invocation_id, artifacts: {}, generatedAt: '' };
    const held = invocation.artifacts[record.artifact];
    if (!held || compareArtifactRecords(record, held) > 0) invocation.artifacts[record.artifact] = record;
    byId.set(record.invocation_id, invocation);
  }
  const invocations = [...byId.values()].map((inv) => ({ ...inv, generatedAt: generatedAtOf(inv) }));
  return invocations.sort((a, b) => compareInstants(b.generatedAt, a.generatedAt) || compareText(b.invocationId, a.invocationId));
}

function generatedAtOf(invocation: ArchivedInvocation): string {
  const runResults = invocation.artifacts.run_results;
  if (runResults?.generated_at && parseInstant(runResults.generated_at) !== null) return runResults.generated_at;
  // An artifact without generated_at (semantic_manifest.json) says nothing of when dbt ran: its
  // capture time stands in only when no artifact of the invocation says.
  const records = Object.values(invocation.artifacts);
  const generated = records.flatMap((r) => (parseInstant(r.generated_at) !== null ? [r.generated_at!] : []));
  const times = generated.length > 0 ? generated : records.map((r) => r.captured_at);
  return times.sort(compareInstants).at(-1) ?? '';
}
