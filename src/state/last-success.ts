import type { Backend } from '../archive/index.js';
import { AtticError } from '../errors.js';
import { resolvePrefix } from '../vocab/index.js';
import { listArchivedInvocations, readArtifactJson, type ArchivedInvocation } from './invocations.js';
import { summarizeRunResults, type RunSummary } from './run-summary.js';

/** Commands whose success is a deployment worth deferring to; `dbt compile` or `docs generate` are not. */
export const DEPLOY_COMMANDS = ['build', 'run'];

export interface StateQuery {
  invocation?: string;
  target?: string;
  commands?: string[];
  branchInvocations?: (invocations: ArchivedInvocation[]) => ArchivedInvocation[];
}

export interface ChosenState {
  invocation: ArchivedInvocation;
  summary: RunSummary | null;
}

/** A successful invocation: a manifest, results, at least one result, none failed. */
export function isSuccess(summary: RunSummary): boolean {
  return summary.total > 0 && summary.failed === 0;
}

/** Picks the invocation whose artifacts `--state` should get: by id, or the newest success. */
export async function chooseState(backend: Backend, query: StateQuery): Promise<ChosenState> {
  const invocations = (await listArchivedInvocations(backend)).filter((inv) => inv.artifacts.manifest);
  if (query.invocation) {
    const id = resolvePrefix(query.invocation, invocations.map((inv) => inv.invocationId), 'invocation with a manifest');
    const invocation = invocations.find((inv) => inv.invocationId === id)!;
    return { invocation, summary: await summaryOf(backend, invocation) };
  }
  const commands = query.commands ?? DEPLOY_COMMANDS;
  for (const invocation of invocations) {
    const summary = await summaryOf(backend, invocation);
    if (!summary || !isSuccess(summary)) continue;
    if (!commands.includes(summary.command ?? '')) continue;
    if (query.target && summary.target !== query.target) continue;
    return { invocation, summary };
  }
  const filters = [`command ${commands.join('|')}`, query.target ? `target ${query.target}` : null].filter(Boolean).join(', ');
  throw new AtticError('not-found', `No successful invocation in the archive (${filters}). Capture a successful 'dbt build' first, or widen the search with --command.`);
}

async function summaryOf(backend: Backend, invocation: ArchivedInvocation): Promise<RunSummary | null> {
  const record = invocation.artifacts.run_results;
  return record ? summarizeRunResults(await readArtifactJson(backend, record)) : null;
}
