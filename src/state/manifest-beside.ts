import { captureRecordKey, readCaptureRecords, type Backend } from '../archive/index.js';
import { AtticError } from '../errors.js';
import { artifactFileName, type ArtifactType } from '../vocab/index.js';
import type { ArchivedInvocation } from './invocations.js';

/**
 * A run whose run_results.json sat in target/ beside a manifest another invocation wrote (a
 * later `dbt parse`, a `source freshness`, dbt Cloud's rpc) has results and no manifest of its
 * own, and dbt's --state needs one. Says what it has and which manifest was captured beside it.
 */
export async function noManifestOfItsOwn(backend: Backend, invocation: ArchivedInvocation): Promise<AtticError> {
  const id = invocation.invocationId;
  const held = (Object.keys(invocation.artifacts) as ArtifactType[]).map(artifactFileName).sort().join(', ');
  const beside = await manifestsBeside(backend, invocation);
  const instead =
    beside.length > 0
      ? ` The manifest captured beside it was written by another invocation, ${beside.join(', ')}: 'dbtattic state --invocation ${beside[0]}' writes that one (without ${id}'s results).`
      : ' Name a run that has one, or use --last-success.';
  return new AtticError('not-found', `Invocation ${id} has no manifest of its own (it archived ${held} only), and dbt's --state needs one.${instead}`, {
    manifests_beside: beside,
  });
}

/** Manifests of other invocations filed by the captures that filed this invocation's artifacts. */
async function manifestsBeside(backend: Backend, invocation: ArchivedInvocation): Promise<string[]> {
  const keys = [...new Set(Object.values(invocation.artifacts).map((r) => captureRecordKey(r.capture_id)))];
  const captures = await readCaptureRecords(backend, keys, () => undefined);
  const ids = captures.flatMap((c) =>
    c.artifacts.filter((a) => a.artifact === 'manifest' && a.invocation_id && a.invocation_id !== invocation.invocationId).map((a) => a.invocation_id!),
  );
  return [...new Set(ids)].sort();
}
