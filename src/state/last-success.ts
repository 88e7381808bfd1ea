import { captureRecordKey, listCaptureRecords, readBranch, readCaptureRecords, type Backend } from '../archive/index.js';
import { AtticError, isAtticError } from '../errors.js';
import { resolvePrefix } from '../vocab/index.js';
import { listArchivedInvocations, readInvocation, recentInvocations, type ArchivedInvocation } from './invocations.js';
import { noManifestOfItsOwn } from './manifest-beside.js';
import { refuseUnknownBranch } from './known-branch.js';
import { readRunSummary, type RunSummary } from './judged-run.js';

/** Commands whose success is a deployment worth deferring to; `dbt compile` or `docs generate` are not. */
export const DEPLOY_COMMANDS = ['build', 'run'];

export interface StateQuery {
  invocation?: string;
  target?: string;
  commands?: string[];
  branch?: string;
  /** Walk captures newest first and stop at the first success (remote archives: no full read). */
  walk?: boolean;
  /** Accept a branch's base run that failed (it can be made with `branch create --allow-failed`). */
  allowFailed?: boolean;
  /** Invocations found damaged while writing their state: the search goes on past them. */
  exclude?: ReadonlySet<string>;
}

export interface ChosenState {
  invocation: ArchivedInvocation;
  summary: RunSummary | null;
  /** Set when the branch had no success of its own and its base run was taken. */
  fromBase?: { branch: string };
}

/** A successful invocation: a manifest, results, at least one result, none failed. */
export function isSuccess(summary: RunSummary): boolean {
  return summary.total > 0 && summary.failed === 0;
}

/** Picks the invocation whose artifacts `--state` should get: by id, or the newest success. */
export async function chooseState(backend: Backend, query: StateQuery): Promise<ChosenState> {
  if (query.walk && !query.invocation) {
    for await (const invocation of recentInvocations(backend)) {
      if (query.branch && invocation.branch !== query.branch) continue;
      const chosen = await successOf(backend, invocation, query);
      if (chosen) return chosen;
    }
    const base = query.branch ? await baseOf(backend, (id) => readInvocation(backend, id), query.branch) : null;
    if (base) return acceptBase(base, query);
    if (query.branch) await refuseUnknownBranch(backend, query.branch);
    throw nothingMatched(query);
  }
  const archived = await listArchivedInvocations(backend);
  const invocations = archived.filter((inv) => inv.artifacts.manifest);
  if (query.invocation) {
    const id = await resolveWithManifest(backend, query.invocation, invocations, archived);
    const invocation = invocations.find((inv) => inv.invocationId === id)!;
    return { invocation, summary: await summaryOf(backend, invocation) };
  }
  const onBranch = query.branch ? await branchFilter(backend, query.branch) : () => true;
  for (const invocation of invocations.filter(onBranch)) {
    const chosen = await successOf(backend, invocation, query);
    if (chosen) return chosen;
  }
  if (query.branch) {
    const base = await baseOf(backend, async (id) => invocations.find((inv) => inv.invocationId === id), query.branch);
    if (base) return acceptBase(base, query);
  }
  if (query.branch) await refuseUnknownBranch(backend, query.branch);
  throw nothingMatched(query);
}

/**
 * The invocation with a manifest an id names. An id of a run archived without a manifest of its
 * own (`history` lists it) is told so, with the manifest captured beside it, rather than "no
 * invocation matches".
 */
async function resolveWithManifest(backend: Backend, prefix: string, withManifest: ArchivedInvocation[], archived: ArchivedInvocation[]): Promise<string> {
  try {
    return resolvePrefix(
      prefix,
      withManifest.map((inv) => inv.invocationId),
      'invocation with a manifest',
      'invocations with a manifest',
    );
  } catch (error) {
    if (!isAtticError(error) || error.code !== 'not-found') throw error;
    const without = archived.filter((inv) => !inv.artifacts.manifest && inv.invocationId.startsWith(prefix));
    if (without.length === 0) throw error;
    const id = resolvePrefix(
      prefix,
      without.map((inv) => inv.invocationId),
      'invocation',
    );
    throw await noManifestOfItsOwn(backend, without.find((inv) => inv.invocationId === id)!);
  }
}

async function successOf(backend: Backend, invocation: ArchivedInvocation, query: StateQuery): Promise<ChosenState | null> {
  if (!invocation.artifacts.manifest || query.exclude?.has(invocation.invocationId)) return null;
  const summary = await intactSummaryOf(backend, invocation);
  if (!summary || !isSuccess(summary)) return null;
  if (!(query.commands ?? DEPLOY_COMMANDS).includes(summary.command ?? '')) return null;
  if (query.target && summary.target !== query.target) return null;
  if (!(await exitedCleanly(backend, invocation))) return null;
  return { invocation, summary };
}

/**
 * A run `dbtattic run` saw end with a non-zero exit or a signal is no success, whatever its
 * results say: dbt interrupted writes the results of the nodes it finished (all of them
 * successes), and an on-run-end hook that fails leaves every result a success. The capture
 * that filed its run results says how the run ended, when it was a `run`'s.
 */
async function exitedCleanly(backend: Backend, invocation: ArchivedInvocation): Promise<boolean> {
  const results = invocation.artifacts.run_results;
  if (!results) return true;
  const [capture] = await readCaptureRecords(backend, [captureRecordKey(results.capture_id)], () => undefined);
  const run = capture?.run;
  return !run || (run.exit_code === 0 && run.signal === null);
}

function nothingMatched(query: StateQuery): AtticError {
  const commands = query.commands ?? DEPLOY_COMMANDS;
  const filters = [`command ${commands.join('|')}`, query.target ? `target ${query.target}` : null, query.branch ? `branch ${query.branch}` : null]
    .filter(Boolean)
    .join(', ');
  return new AtticError(
    'not-found',
    `No successful invocation in the archive (${filters}). Capture a successful 'dbt build' first, or widen the search with --command.`,
  );
}

/** A success whose run results are damaged cannot be judged: the search goes on to an older one. */
async function intactSummaryOf(backend: Backend, invocation: ArchivedInvocation): Promise<RunSummary | null> {
  return summaryOf(backend, invocation).catch((error: unknown) => {
    if (isAtticError(error) && error.code === 'archive-damaged') return null;
    throw error;
  });
}

async function summaryOf(backend: Backend, invocation: ArchivedInvocation): Promise<RunSummary | null> {
  const record = invocation.artifacts.run_results;
  return record ? readRunSummary(backend, record) : null;
}

/** An invocation is on the branch of the capture that first filed its artifacts. */
export async function branchFilter(backend: Backend, branch: string): Promise<(invocation: ArchivedInvocation) => boolean> {
  const branchOf = new Map<string, string | null>();
  for (const capture of await listCaptureRecords(backend)) {
    for (const a of capture.artifacts) {
      if (a.status === 'captured' && a.invocation_id && !branchOf.has(a.invocation_id)) branchOf.set(a.invocation_id, capture.branch);
    }
  }
  return (invocation) => branchOf.get(invocation.invocationId) === branch;
}

/**
 * A base is a last success only if it succeeded: `branch create --allow-failed` can start a
 * branch at a failed run, and handing that to `--state` would defer to a broken deployment.
 */
function acceptBase(base: ChosenState, query: StateQuery): ChosenState {
  const id = base.invocation.invocationId;
  const failed = !base.summary || !isSuccess(base.summary);
  if (failed && !query.allowFailed) {
    const why = base.summary ? `${base.summary.failed} of its ${base.summary.total} results failed` : 'it has no run results';
    throw new AtticError(
      'not-found',
      `Branch ${query.branch} has no success of its own, and its base ${id} is no success (${why}). Pass --allow-failed to use it anyway.`,
    );
  }
  if (query.target && base.summary?.target !== query.target) {
    throw new AtticError(
      'not-found',
      `Branch ${query.branch} has no success of its own, and its base ${id} ran against target ${base.summary?.target ?? 'unknown'}, not ${query.target}.`,
    );
  }
  return base;
}

/** A branch made with `branch create` falls back to the run it started from. */
async function baseOf(backend: Backend, find: (id: string) => Promise<ArchivedInvocation | undefined>, branch: string): Promise<ChosenState | null> {
  const ref = await readBranch(backend, branch);
  const invocation = ref?.base ? await find(ref.base.invocation_id) : undefined;
  if (!invocation) return null;
  return { invocation, summary: await summaryOf(backend, invocation), fromBase: { branch } };
}
