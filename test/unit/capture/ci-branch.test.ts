import { describe, expect, it } from 'vitest';
import { readCiBranch } from '../../../src/capture/ci-branch.js';

describe('readCiBranch', () => {
  it('is null outside CI and ignores empty variables', () => {
    expect(readCiBranch({})).toBeNull();
    expect(readCiBranch({ GITHUB_HEAD_REF: '', GITHUB_REF_NAME: ' ' })).toBeNull();
  });

  it("prefers a pull request's source branch over the ref that was built", () => {
    expect(readCiBranch({ GITHUB_HEAD_REF: 'feature/a', GITHUB_REF_NAME: '12/merge' })).toBe('feature/a');
    expect(readCiBranch({ GITHUB_HEAD_REF: '', GITHUB_REF_NAME: 'main', GITHUB_REF_TYPE: 'branch' })).toBe('main');
    expect(readCiBranch({ CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: 'mr-src', CI_COMMIT_REF_NAME: 'refs/merge-requests/4/head' })).toBe('mr-src');
  });

  it('skips tag builds, which are not of a branch', () => {
    expect(readCiBranch({ GITHUB_REF_NAME: 'v1.2.0', GITHUB_REF_TYPE: 'tag' })).toBeNull();
    expect(readCiBranch({ CI_COMMIT_REF_NAME: 'v1.2.0', CI_COMMIT_TAG: 'v1.2.0' })).toBeNull();
    expect(readCiBranch({ BUILD_SOURCEBRANCH: 'refs/tags/v1' })).toBeNull();
    expect(readCiBranch({ BRANCH_NAME: 'v1', TAG_NAME: 'v1' })).toBeNull();
  });

  it('reads the other CI systems, normalising ref prefixes', () => {
    expect(readCiBranch({ BUILD_SOURCEBRANCH: 'refs/heads/feature/x' })).toBe('feature/x');
    expect(readCiBranch({ GIT_BRANCH: 'origin/release' })).toBe('release');
    expect(readCiBranch({ BUILDKITE_BRANCH: 'bk' })).toBe('bk');
    expect(readCiBranch({ CIRCLE_BRANCH: 'circle' })).toBe('circle');
    expect(readCiBranch({ BITBUCKET_BRANCH: 'bb' })).toBe('bb');
    expect(readCiBranch({ CHANGE_BRANCH: 'pr-src', BRANCH_NAME: 'PR-7' })).toBe('pr-src');
  });
});
