import { redactNested, type ArtifactType } from '../vocab/index.js';
import type { ArtifactHeader } from './detect.js';
import { json, num, str, timestamp } from './fields.js';
import type { InvocationFacts } from './rows.js';

/**
 * Each artifact of an invocation tells part of the invocation row: the manifest its project and
 * adapter, run_results its command and timing. `mergeInvocationFacts` puts the parts together.
 */
export interface ArtifactInvocationFacts {
  from: ArtifactType;
  facts: InvocationFacts;
}

export function emptyFacts(invocationId: string): InvocationFacts {
  return {
    invocation_id: invocationId,
    project_name: null,
    project_id: null,
    dbt_version: null,
    adapter_type: null,
    command: null,
    selection: null,
    exclusion: null,
    selector: null,
    resource_types: null,
    full_refresh: null,
    target: null,
    vars: null,
    invocation_command: null,
    args: null,
    env: null,
    generated_at: null,
    started_at: null,
    completed_at: null,
    elapsed_s: null,
    result_count: null,
    status_counts: null,
    code_fingerprint: null,
  };
}

/** What every artifact's metadata says about its invocation. */
export function metadataFacts(header: ArtifactHeader, invocationId: string): InvocationFacts {
  const metadata = header.metadata;
  return {
    ...emptyFacts(invocationId),
    dbt_version: str(metadata.dbt_version),
    // dbt copies DBT_ENV_CUSTOM_ENV_* here; one named like a credential is not kept (docs/reliability.md).
    env: json(redactNested(metadata.env)),
    generated_at: timestamp(header.generatedAt),
    started_at: timestamp(metadata.invocation_started_at),
  };
}

/** A results file is written when the command ends; dbt before 1.8 did not say when it began. */
export function timingFacts(facts: InvocationFacts, elapsed: unknown): InvocationFacts {
  const elapsed_s = num(elapsed);
  const completed_at = facts.generated_at;
  let started_at = facts.started_at;
  if (started_at === null && completed_at !== null && elapsed_s !== null) {
    const start = Date.parse(completed_at) - elapsed_s * 1000;
    started_at = Number.isFinite(start) ? new Date(start).toISOString() : null;
  }
  return { ...facts, elapsed_s, completed_at, started_at };
}

/** run_results says most about an invocation, then the manifest; the rest fill gaps. */
const PRIORITY: Record<ArtifactType, number> = {
  run_results: 0,
  manifest: 1,
  sources: 2,
  freshness: 2,
  catalog: 3,
  semantic_manifest: 4,
};

/**
 * One invocation row from the facts of its artifacts: column by column, the first non-null
 * value in priority order. All parts must name the same invocation.
 */
export function mergeInvocationFacts(parts: readonly ArtifactInvocationFacts[]): InvocationFacts {
  const ordered = [...parts].sort((a, b) => PRIORITY[a.from] - PRIORITY[b.from]);
  const first = ordered[0];
  if (!first) throw new Error('mergeInvocationFacts needs at least one artifact');
  const merged: InvocationFacts = { ...first.facts };
  for (const { facts } of ordered.slice(1)) {
    if (facts.invocation_id !== merged.invocation_id) {
      throw new Error(`cannot merge facts of invocations ${merged.invocation_id} and ${facts.invocation_id}`);
    }
    fillGaps(merged, facts);
  }
  merged.command = commandOfParts(ordered, merged.command);
  return merged;
}

/**
 * Only `docs generate` writes catalog.json: with one in the invocation, a command its results
 * could not name (`rpc`, a dbt-rpc server whose args kept no method) was a docs generate.
 */
function commandOfParts(parts: readonly ArtifactInvocationFacts[], command: string | null): string | null {
  const hasCatalog = parts.some((part) => part.from === 'catalog');
  return hasCatalog && (command === null || command === 'rpc') ? 'docs generate' : command;
}

function fillGaps(target: InvocationFacts, source: InvocationFacts): void {
  for (const key of Object.keys(target) as (keyof InvocationFacts)[]) {
    if (target[key] === null) assign(target, source, key);
  }
}

function assign<K extends keyof InvocationFacts>(target: InvocationFacts, source: InvocationFacts, key: K): void {
  target[key] = source[key];
}
