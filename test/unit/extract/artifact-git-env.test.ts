import { describe, expect, it } from 'vitest';
import { applyArtifactGitEnv, readArtifactGitEnv } from '../../../src/extract/artifact-git-env.js';
import type { GitContext } from '../../../src/capture/git-context.js';

const SHA = '04cd2b6a9061e6644f5d358647396300aa63cf50';
const OTHER = 'ffffffffffffffffffffffffffffffffffffffff';

const captured: GitContext = {
  sha: SHA,
  branch: 'main',
  branchSource: 'git',
  dirty: true,
  diffHash: 'a'.repeat(64),
  remoteUrl: 'https://github.com/acme/shop.git',
  isRepository: true,
};

describe('readArtifactGitEnv', () => {
  it('reads our names before the common ones, and records which key was used', () => {
    expect(readArtifactGitEnv({ GIT_SHA: OTHER, DBTATTIC_GIT_SHA: SHA.toUpperCase(), GIT_BRANCH: 'origin/feature/x' })).toEqual({
      sha: SHA,
      branch: 'feature/x',
      keys: { sha: 'DBTATTIC_GIT_SHA', branch: 'GIT_BRANCH' },
    });
    expect(readArtifactGitEnv({ GIT_COMMIT: SHA }).keys.sha).toBe('GIT_COMMIT');
  });

  it('ignores values that are not a commit, and any malformed env', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a CI variable left unexpanded, as a misconfigured job passes it
    expect(readArtifactGitEnv({ DBTATTIC_GIT_SHA: 'HEAD', GIT_SHA: '${GITHUB_SHA}', GIT_COMMIT: SHA }).sha).toBe(SHA);
    expect(readArtifactGitEnv({ GIT_SHA: 'abc' }).sha).toBeNull();
    for (const env of [undefined, null, 'x', ['GIT_SHA'], { GIT_SHA: 42 }]) {
      expect(readArtifactGitEnv(env)).toEqual({ sha: null, branch: null, keys: { sha: null, branch: null } });
    }
  });
});

describe('applyArtifactGitEnv', () => {
  it('lets stamped values win; another commit makes the local dirty state unknown', () => {
    const stamped = readArtifactGitEnv({ GIT_SHA: OTHER, DBTATTIC_GIT_BRANCH: 'release' });
    expect(applyArtifactGitEnv(captured, stamped)).toEqual({
      ...captured,
      sha: OTHER,
      dirty: null,
      diffHash: null,
      branch: 'release',
      branchSource: 'artifact',
    });
  });

  it('keeps the full captured sha and dirty state when the stamped sha is a prefix of it', () => {
    expect(applyArtifactGitEnv(captured, readArtifactGitEnv({ GIT_SHA: SHA.slice(0, 8) }))).toEqual(captured);
  });

  it('changes nothing without stamped values', () => {
    expect(applyArtifactGitEnv(captured, readArtifactGitEnv({}))).toBe(captured);
  });
});
