import { normaliseBranchName } from '../vocab/index.js';
/**
 * CI systems check out a commit, not a branch (detached HEAD), and name the branch in an
 * environment variable instead. Order matters: a pull request's source branch comes before
 * the ref that was built (on GitHub that ref is `123/merge`), and tag builds are skipped since
 * a tag is not a branch.
 */

type Env = Record<string, string | undefined>;

interface BranchVariable {
  name: string;
  /** The variable is ignored when this says the build is not of a branch. */
  skip?: (env: Env) => boolean;
}

const isSet = (env: Env, name: string): boolean => (env[name] ?? '') !== '';

export const CI_BRANCH_VARIABLES: readonly BranchVariable[] = [
  { name: 'GITHUB_HEAD_REF' }, // GitHub Actions, pull requests only
  { name: 'GITHUB_REF_NAME', skip: (env) => env.GITHUB_REF_TYPE === 'tag' },
  { name: 'CI_MERGE_REQUEST_SOURCE_BRANCH_NAME' }, // GitLab merge request pipelines
  { name: 'CI_COMMIT_BRANCH' }, // GitLab branch pipelines
  { name: 'CI_COMMIT_REF_NAME', skip: (env) => isSet(env, 'CI_COMMIT_TAG') }, // GitLab
  { name: 'SYSTEM_PULLREQUEST_SOURCEBRANCH' }, // Azure Pipelines, pull requests
  { name: 'BUILD_SOURCEBRANCH', skip: (env) => !(env.BUILD_SOURCEBRANCH ?? '').startsWith('refs/heads/') }, // Azure Pipelines
  { name: 'BITBUCKET_BRANCH' },
  { name: 'BUILDKITE_BRANCH' },
  { name: 'CIRCLE_BRANCH' },
  { name: 'TRAVIS_PULL_REQUEST_BRANCH' },
  { name: 'TRAVIS_BRANCH', skip: (env) => isSet(env, 'TRAVIS_TAG') },
  { name: 'DRONE_SOURCE_BRANCH' },
  { name: 'CHANGE_BRANCH' }, // Jenkins multibranch, pull requests
  { name: 'BRANCH_NAME', skip: (env) => isSet(env, 'TAG_NAME') }, // Jenkins multibranch
  { name: 'GIT_BRANCH' }, // Jenkins git plugin, as `origin/main`
];

/** The branch a CI build is for, or null outside CI (or on a tag build). */
export function readCiBranch(env: Env): string | null {
  for (const variable of CI_BRANCH_VARIABLES) {
    const value = env[variable.name]?.trim();
    if (!value || variable.skip?.(env)) continue;
    return normaliseBranchName(value);
  }
  return null;
}
