import { createBranch, listCaptureRecords, readBranch, takeBaseLease, type Backend, type Branch, type WaitNote } from '../archive/index.js';
import { AtticError } from '../errors.js';
import { countOf, resolvePrefix } from '../vocab/index.js';
import { listArchivedInvocations } from './invocations.js';
import { isSuccess } from './last-success.js';
import { readRunSummary } from './judged-run.js';

/**
 * Starts a new line of history at a past run. Branching from a run that failed (or has no
 * results) is refused unless asked for: a base is what `state` falls back to, and deferring to
 * a failed deployment is rarely what anyone wants.
 */
export async function createBranchFrom(
  backend: Backend,
  name: string,
  from: string,
  allowFailed: boolean,
  now: Date = new Date(),
  onWait?: WaitNote,
): Promise<Branch> {
  // Under a base lease, so that a forget at work either sees this branch or has finished before
  // its base is looked for (archive/prune-guard.ts): a base is never forgotten.
  const release = await takeBaseLease(backend, onWait);
  try {
    return await createFromBase(backend, name, from, allowFailed, now);
  } finally {
    await release();
  }
}

async function createFromBase(backend: Backend, name: string, from: string, allowFailed: boolean, now: Date): Promise<Branch> {
  const invocations = await listArchivedInvocations(backend);
  const id = from.startsWith('@')
    ? await headOf(backend, from.slice(1))
    : resolvePrefix(
        from,
        invocations.map((inv) => inv.invocationId),
        'invocation',
      );
  const invocation = invocations.find((inv) => inv.invocationId === id);
  // A head whose run was forgotten since names nothing to branch from.
  if (!invocation) throw new AtticError('not-found', `Invocation ${id} is not in the archive any more. See dbtattic history.`);
  const results = invocation.artifacts.run_results;
  const summary = results ? await readRunSummary(backend, results) : null;
  if (!allowFailed && (!summary || !isSuccess(summary))) {
    const why = summary ? `${summary.failed} of its ${countOf(summary.total, 'result')} failed` : 'it has no run results';
    throw new AtticError('usage', `Invocation ${id} is not a success (${why}). Pass --allow-failed to branch from it anyway.`);
  }
  return createBranch(backend, name, { invocation_id: id, branch: await branchOfInvocation(backend, id) }, now);
}

/** `@name`, as other commands take it: the newest run on that branch (its head). */
async function headOf(backend: Backend, name: string): Promise<string> {
  const branch = await readBranch(backend, name);
  if (!branch?.head_invocation_id) throw new AtticError('not-found', `No branch '${name}' with a run on it. See dbtattic branch list.`);
  return branch.head_invocation_id;
}

async function branchOfInvocation(backend: Backend, invocationId: string): Promise<string | null> {
  for (const capture of await listCaptureRecords(backend)) {
    if (capture.artifacts.some((a) => a.invocation_id === invocationId && a.status === 'captured')) return capture.branch;
  }
  return null;
}
