import { readCiBranch } from './ci-branch.js';
import { runGit } from './git-command.js';
import { headAt } from './git-reflog.js';
import { DEFAULT_DIFF_LIMITS, hashWorkingDiff, type DiffHashLimits } from './git-diff-hash.js';
import { isDirty, parseGitStatus } from './git-status.js';
import { stripUrlCredentials } from './url-credentials.js';

/**
 * The code side of a run's context: which commit dbt ran, on which branch, and whether the
 * working tree matched that commit. One `git status` and one remote lookup (6–18 ms), plus a
 * `git diff` only when the tree is dirty. Never throws: without git or outside a repository,
 * every field is null and `isRepository` false.
 */
export interface GitContext {
  sha: string | null;
  branch: string | null;
  /**
   * Where `branch` came from: git itself, a CI variable (detached HEAD), a value stamped into the
   * artifact, or git's reflog (HEAD moved after dbt ran and before the capture: git-reflog.ts).
   */
  branchSource: 'git' | 'ci' | 'artifact' | 'reflog' | null;
  dirty: boolean | null;
  /** sha256 of the uncommitted changes (see git-diff-hash.ts); null when clean or unknown. */
  diffHash: string | null;
  /** The remote's URL with credentials stripped (see url-credentials.ts). */
  remoteUrl: string | null;
  isRepository: boolean;
}

export interface GitContextOptions {
  /** Bound on each git call; a slower git yields nulls, never a stalled capture. */
  timeoutMs?: number;
  diffLimits?: Partial<DiffHashLimits>;
  /**
   * Paths (relative to cwd) that are output, not code: dbt's target/ and our own store. Left out
   * of dirtiness and the diff hash, or every capture would make the next one "dirty".
   */
  exclude?: readonly string[];
  /** When dbt ran, for a context taken after it: HEAD as it was then, when it moved since. */
  asOf?: Date | null;
}

export const NO_GIT_CONTEXT: GitContext = {
  sha: null,
  branch: null,
  branchSource: null,
  dirty: null,
  diffHash: null,
  remoteUrl: null,
  isRepository: false,
};

export async function readGitContext(cwd: string, env: Record<string, string | undefined>, options: GitContextOptions = {}): Promise<GitContext> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DIFF_LIMITS.timeoutMs;
  const pathspec = excludePathspec(options.exclude ?? []);
  const [statusResult, remoteUrl] = await Promise.all([
    runGit(cwd, ['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=all', ...pathspec], timeoutMs),
    readRemoteUrl(cwd, timeoutMs),
  ]);
  if (!statusResult.ok) return NO_GIT_CONTEXT;
  const status = parseGitStatus(statusResult.stdout);
  const ciBranch = status.branch === null ? readCiBranch(env) : null;
  const dirty = isDirty(status);
  const limits = { ...DEFAULT_DIFF_LIMITS, timeoutMs, ...options.diffLimits };
  const base = status.sha ?? (await readEmptyTree(cwd, timeoutMs));
  const then = options.asOf ? await headAt(cwd, options.asOf, status.branch, timeoutMs) : { moved: false as const };
  // The working tree of then is gone: whether it was dirty is unknown.
  if (then.moved) return { sha: then.sha, branch: then.branch, branchSource: 'reflog', dirty: null, diffHash: null, remoteUrl, isRepository: true };
  return {
    sha: status.sha,
    branch: status.branch ?? ciBranch,
    branchSource: status.branch !== null ? 'git' : ciBranch !== null ? 'ci' : null,
    dirty,
    diffHash: dirty && base !== null ? await hashWorkingDiff(cwd, base, status.untracked, limits, pathspec) : null,
    remoteUrl,
    isRepository: true,
  };
}

/** `origin` when it exists, else the first remote git lists. */
async function readRemoteUrl(cwd: string, timeoutMs: number): Promise<string | null> {
  const result = await runGit(cwd, ['config', '--get-regexp', '^remote\\..*\\.url$'], timeoutMs);
  if (!result.ok) return null;
  const remotes = result.stdout
    .split('\n')
    .map((line) => /^remote\.(.+)\.url (.+)$/.exec(line.trim()))
    .filter((match): match is RegExpExecArray => match !== null);
  const chosen = remotes.find((match) => match[1] === 'origin') ?? remotes[0];
  return chosen?.[2] === undefined ? null : stripUrlCredentials(chosen[2]);
}

/** Before the first commit there is no HEAD to diff against; the empty tree stands in (in the repository's hash format; stdin is empty). */
async function readEmptyTree(cwd: string, timeoutMs: number): Promise<string | null> {
  const result = await runGit(cwd, ['hash-object', '-t', 'tree', '--stdin'], timeoutMs);
  return result.ok ? result.stdout.trim() : null;
}

function excludePathspec(exclude: readonly string[]): string[] {
  return exclude.length === 0 ? [] : ['--', '.', ...exclude.map((p) => `:(exclude)${p}`)];
}
