import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { readGitContext } from '../../../src/capture/git-context.js';
import { parseEntries, rewind } from '../../../src/capture/git-reflog.js';

const roots: string[] = [];
afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'dbtattic-git-'));
  roots.push(dir);
  return dir;
}

/** Identity and signing settings on the command line, so the tests do not depend on the machine's git config. */
async function git(cwd: string, ...args: string[]): Promise<string> {
  const result = await execa('git', ['-c', 'user.name=dbtattic test', '-c', 'user.email=test@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd });
  return result.stdout;
}

async function makeRepo(): Promise<string> {
  const dir = await tempDir();
  await git(dir, 'init', '-q', '-b', 'main');
  await mkdir(path.join(dir, 'models'));
  await writeFile(path.join(dir, 'models', 'orders.sql'), 'select 1 as id\n');
  await git(dir, 'add', '.');
  await git(dir, 'commit', '-q', '-m', 'first');
  return dir;
}

describe('readGitContext', () => {
  it('reads a clean repository', async () => {
    const dir = await makeRepo();
    const sha = await git(dir, 'rev-parse', 'HEAD');
    expect(await readGitContext(dir, {})).toEqual({
      sha,
      branch: 'main',
      branchSource: 'git',
      dirty: false,
      diffHash: null,
      remoteUrl: null,
      isRepository: true,
    });
  });

  it('is all null outside a repository, and for a directory that does not exist', async () => {
    const dir = await tempDir();
    const none = { sha: null, branch: null, branchSource: null, dirty: null, diffHash: null, remoteUrl: null, isRepository: false };
    expect(await readGitContext(dir, { GITHUB_REF_NAME: 'main' })).toEqual(none);
    expect(await readGitContext(path.join(dir, 'missing'), {})).toEqual(none);
  });

  it('tells two dirty trees on the same commit apart, and the same tree twice alike', async () => {
    const dir = await makeRepo();
    const file = path.join(dir, 'models', 'orders.sql');
    await writeFile(file, 'select 2 as id\n');
    const first = await readGitContext(dir, {});
    const again = await readGitContext(dir, {});
    await writeFile(file, 'select 3 as id\n');
    const second = await readGitContext(dir, {});
    expect(first.dirty).toBe(true);
    expect(first.diffHash).toMatch(/^[0-9a-f]{64}$/);
    expect(again.diffHash).toBe(first.diffHash);
    expect(second.diffHash).not.toBe(first.diffHash);
    expect(second.sha).toBe(first.sha);
  });

  it('hashes untracked files by name and content, from a subdirectory too', async () => {
    const dir = await makeRepo();
    const cwd = path.join(dir, 'models');
    await writeFile(path.join(cwd, 'new.sql'), 'select 1\n');
    const first = await readGitContext(cwd, {});
    await writeFile(path.join(cwd, 'new.sql'), 'select 2\n');
    const changed = await readGitContext(cwd, {});
    await rm(path.join(cwd, 'new.sql'));
    const clean = await readGitContext(cwd, {});
    expect(first.dirty).toBe(true);
    expect(changed.diffHash).not.toBe(first.diffHash);
    expect(clean).toMatchObject({ dirty: false, diffHash: null });
  });

  it('bounds the diff it reads: beyond the limit only the prefix counts', async () => {
    const dir = await makeRepo();
    const file = path.join(dir, 'models', 'orders.sql');
    const limits = { diffLimits: { maxDiffBytes: 64 } };
    await writeFile(file, `${'x'.repeat(10_000)}\nend one\n`);
    const first = await readGitContext(dir, {}, limits);
    await writeFile(file, `${'x'.repeat(10_000)}\nend two\n`);
    const second = await readGitContext(dir, {}, limits);
    const unbounded = await readGitContext(dir, {});
    expect(first.diffHash).toMatch(/^[0-9a-f]{64}$/);
    expect(second.diffHash).toBe(first.diffHash);
    expect(unbounded.diffHash).not.toBe(second.diffHash);
  });

  it('takes the branch from CI variables on a detached HEAD', async () => {
    const dir = await makeRepo();
    await git(dir, 'checkout', '-q', '--detach');
    const sha = await git(dir, 'rev-parse', 'HEAD');
    expect(await readGitContext(dir, { GITHUB_HEAD_REF: 'feature/orders', GITHUB_REF_NAME: '12/merge' })).toMatchObject({
      sha,
      branch: 'feature/orders',
      branchSource: 'ci',
    });
    expect(await readGitContext(dir, {})).toMatchObject({ sha, branch: null, branchSource: null, dirty: false });
  });

  it('prefers the git branch over CI variables when there is one', async () => {
    const dir = await makeRepo();
    expect(await readGitContext(dir, { CI_COMMIT_REF_NAME: 'other' })).toMatchObject({ branch: 'main', branchSource: 'git' });
  });

  it('reads a repository before its first commit', async () => {
    const dir = await tempDir();
    await git(dir, 'init', '-q', '-b', 'main');
    await writeFile(path.join(dir, 'dbt_project.yml'), 'name: shop\n');
    const context = await readGitContext(dir, {});
    expect(context).toMatchObject({ sha: null, branch: 'main', dirty: true, isRepository: true });
    expect(context.diffHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('records the origin remote without credentials', async () => {
    const dir = await makeRepo();
    await git(dir, 'remote', 'add', 'backup', 'git@github.com:acme/shop.git');
    await git(dir, 'remote', 'add', 'origin', 'https://x-access-token:ghs_SECRET123@github.com/acme/shop.git');
    const context = await readGitContext(dir, {});
    expect(context.remoteUrl).toBe('https://github.com/acme/shop.git');
    await git(dir, 'remote', 'remove', 'origin');
    expect((await readGitContext(dir, {})).remoteUrl).toBe('git@github.com:acme/shop.git');
  });
});

describe('readGitContext as of when dbt ran (asOf)', () => {
  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('reads HEAD from the reflog when a checkout came after the run: the branch and commit dbt ran on', async () => {
    const dir = await makeRepo();
    const mainSha = await git(dir, 'rev-parse', 'HEAD');
    await wait(1100);
    const ranAt = new Date();
    await wait(1100);
    await git(dir, 'checkout', '-q', '-b', 'feature');
    await writeFile(path.join(dir, 'models', 'orders.sql'), 'select 2 as id\n');
    await git(dir, 'commit', '-q', '-am', 'on feature');
    expect(await readGitContext(dir, {}, { asOf: ranAt })).toEqual({
      sha: mainSha,
      branch: 'main',
      branchSource: 'reflog',
      dirty: null,
      diffHash: null,
      remoteUrl: null,
      isRepository: true,
    });
  });

  it('reads the present when nothing moved HEAD since, or the reflog does not reach back to the run', async () => {
    const dir = await makeRepo();
    const sha = await git(dir, 'rev-parse', 'HEAD');
    await wait(1100);
    expect(await readGitContext(dir, {}, { asOf: new Date() })).toMatchObject({ sha, branch: 'main', branchSource: 'git', dirty: false });
    // Artifacts from before the repository had a history (another machine's): nothing to rewind to.
    expect(await readGitContext(dir, {}, { asOf: new Date('2020-01-01T00:00:00Z') })).toMatchObject({ sha, branch: 'main', branchSource: 'git' });
  });
});

describe('rewind', () => {
  const entries = parseEntries(
    ['c3\tHEAD@{300}\tcommit: on feature', 'b2\tHEAD@{200}\tcheckout: moving from main to feature', 'a1\tHEAD@{100}\tcommit (initial): first'].join('\n'),
  );

  it('takes the branch the first checkout after the run left, and the commit HEAD was on', () => {
    expect(rewind(entries, 150, 'feature')).toEqual({ moved: true, sha: 'a1', branch: 'main' });
    expect(rewind(entries, 250, 'feature')).toEqual({ moved: true, sha: 'b2', branch: 'feature' });
    expect(rewind(entries, 300, 'feature')).toEqual({ moved: false });
    expect(rewind(entries, 50, 'feature')).toEqual({ moved: false });
  });

  it('gives no branch for a run on a detached HEAD', () => {
    const detached = parseEntries(
      [`d4\tHEAD@{200}\tcheckout: moving from ${'f'.repeat(40)} to main`, `a1\tHEAD@{100}\tcheckout: moving from main to ${'f'.repeat(40)}`].join('\n'),
    );
    expect(rewind(detached, 150, 'main')).toEqual({ moved: true, sha: 'a1', branch: null });
  });
});
