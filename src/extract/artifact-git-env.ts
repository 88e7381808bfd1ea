import { normaliseBranchName } from '../vocab/index.js';

/** The git fields a stamped value can override (capture's GitContext has these and more). */
export interface GitFields {
  sha: string | null;
  branch: string | null;
  branchSource: string | null;
  dirty: boolean | null;
  diffHash: string | null;
}

/**
 * dbt copies every `DBT_ENV_CUSTOM_ENV_<NAME>` variable into `metadata.env` of each artifact,
 * with the prefix stripped: the supported way to stamp the commit into the artifacts at the
 * time dbt ran. A stamped value describes the run better than what we read at capture time
 * (capture may happen later, or on another machine), so it wins.
 *
 * Accepted names, first present wins (our own names first: they cannot mean anything else):
 *   sha:    DBTATTIC_GIT_SHA, GIT_SHA, GIT_COMMIT_SHA, GIT_COMMIT
 *   branch: DBTATTIC_GIT_BRANCH, GIT_BRANCH
 * A sha must be 7–64 hex digits; anything else is ignored rather than recorded as a commit.
 */

export const ARTIFACT_SHA_KEYS = ['DBTATTIC_GIT_SHA', 'GIT_SHA', 'GIT_COMMIT_SHA', 'GIT_COMMIT'] as const;
export const ARTIFACT_BRANCH_KEYS = ['DBTATTIC_GIT_BRANCH', 'GIT_BRANCH'] as const;

const SHA = /^[0-9a-f]{7,64}$/;

export interface ArtifactGitEnv {
  sha: string | null;
  branch: string | null;
  /** The `metadata.env` keys the values were read from, for provenance. */
  keys: { sha: string | null; branch: string | null };
}

/** Reads the stamped git values from an artifact's `metadata.env` (any shape is accepted: a malformed one yields nulls). */
export function readArtifactGitEnv(metadataEnv: unknown): ArtifactGitEnv {
  const env = isRecord(metadataEnv) ? metadataEnv : {};
  const sha = firstValue(env, ARTIFACT_SHA_KEYS, (value) => (SHA.test(value.toLowerCase()) ? value.toLowerCase() : null));
  const branch = firstValue(env, ARTIFACT_BRANCH_KEYS, (value) => normaliseBranchName(value));
  return { sha: sha?.value ?? null, branch: branch?.value ?? null, keys: { sha: sha?.key ?? null, branch: branch?.key ?? null } };
}

/**
 * Stamped values override captured ones. When the stamped commit is not the checked-out one,
 * the local working tree says nothing about the code dbt ran, so `dirty` and `diffHash` become
 * unknown; a short stamped sha that prefixes the captured one keeps the full captured sha.
 */
export function applyArtifactGitEnv<T extends GitFields>(context: T, stamped: ArtifactGitEnv): T {
  let result = context;
  if (stamped.sha !== null && !(context.sha?.startsWith(stamped.sha) ?? false)) {
    result = { ...result, sha: stamped.sha, dirty: null, diffHash: null };
  }
  if (stamped.branch !== null) result = { ...result, branch: stamped.branch, branchSource: 'artifact' };
  return result;
}

function firstValue(env: Record<string, unknown>, keys: readonly string[], accept: (value: string) => string | null): { key: string; value: string } | null {
  for (const key of keys) {
    const raw = env[key];
    if (typeof raw !== 'string' || raw.trim() === '') continue;
    const value = accept(raw.trim());
    if (value !== null) return { key, value };
  }
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
