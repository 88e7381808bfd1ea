import path from 'node:path';
import type { StateAnswer } from '../answers/index.js';
import { keySegment, openArchive, putHandoutRecord, type Backend } from '../archive/index.js';
import type { AtticConfig } from '../config/resolve.js';
import { isAtticError } from '../errors.js';
import { checkStateDir, chooseState, STATE_ARTIFACTS, writeStateDir, type ChosenState, type StateQuery } from '../state/index.js';
import { artifactFileName, newTimeId, type ArtifactType } from '../vocab/index.js';
import type { NoticeLine } from './notice.js';

export interface StateRequest extends Omit<StateQuery, 'walk' | 'exclude'> {
  /** Which archived artifacts to write; default: manifest, run results, sources. */
  artifacts?: readonly ArtifactType[];
  /** An absolute directory to write; default: <store>/state/<invocation>. */
  out?: string;
}

export interface HandedOutState {
  /** `state --json`. */
  answer: StateAnswer;
  /** Artifacts asked for that the invocation does not have. */
  missing: ArtifactType[];
  /** What happened on the way: invocations passed over as damaged, a hand-out not recorded. */
  said: NoticeLine[];
}

/**
 * Writes a directory dbt's --state accepts: the chosen invocation's artifacts, never damaged
 * bytes. The hand-out is recorded, since retention keeps what a job was handed (docs/retention.md).
 */
export async function handOutState(config: AtticConfig, request: StateRequest): Promise<HandedOutState> {
  const backend = await openArchive(config.archiveLocation, { create: false, remote: config.remote });
  const { artifacts = STATE_ARTIFACTS, out, ...choice } = request;
  if (out) await checkStateDir(out);
  const dirOf = (id: string): string => out ?? path.join(config.localDir, 'state', keySegment(id));
  const said: NoticeLine[] = [];
  const { chosen, dir, files } = await writeIntactState(backend, { ...choice, walk: config.remote !== null }, dirOf, artifacts, said);
  const handout = await recordHandout(backend, chosen.invocation.invocationId);
  if (handout) said.push(handout);
  const answer: StateAnswer = {
    path: dir,
    invocation_id: chosen.invocation.invocationId,
    generated_at: chosen.invocation.generatedAt,
    command: chosen.summary?.command ?? null,
    target: chosen.summary?.target ?? null,
    results: chosen.summary?.byStatus ?? null,
    files: files.map((f) => path.basename(f)),
    from_base: chosen.fromBase ?? null,
  };
  return { answer, missing: artifacts.filter((a) => !answer.files.includes(artifactFileName(a))), said };
}

/**
 * Never hands out damaged bytes, yet still finds the newest intact success: an invocation whose
 * artifacts turn out damaged while being written is passed over, with a warning, for the next.
 * An invocation asked for by id is not replaced by another.
 */
async function writeIntactState(
  backend: Backend,
  query: StateQuery,
  dirOf: (id: string) => string,
  artifacts: readonly ArtifactType[],
  said: NoticeLine[],
): Promise<{ chosen: ChosenState; dir: string; files: string[] }> {
  const exclude = new Set<string>();
  for (;;) {
    const chosen = await chooseState(backend, { ...query, exclude });
    const dir = dirOf(chosen.invocation.invocationId);
    try {
      return { chosen, dir, files: await writeStateDir(backend, chosen.invocation, dir, artifacts) };
    } catch (error) {
      if (query.invocation || !isAtticError(error) || error.code !== 'archive-damaged') throw error;
      said.push({ level: 'warning', text: `passing over ${chosen.invocation.invocationId}: ${error.message}` });
      exclude.add(chosen.invocation.invocationId);
    }
  }
}

/** A store we may not write to still answers; the hand-out is then unrecorded, which forget should know. */
async function recordHandout(backend: Backend, invocationId: string): Promise<NoticeLine | null> {
  const now = new Date();
  try {
    await putHandoutRecord(backend, { handout_id: newTimeId(now), invocation_id: invocationId, by: 'state', at: now.toISOString() });
    return null;
  } catch (error) {
    return {
      level: 'note',
      text: `could not record that ${invocationId} was handed out (${error instanceof Error ? error.message : String(error)}); forget may remove it`,
    };
  }
}
