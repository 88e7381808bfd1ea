import { createHash, type Hash } from 'node:crypto';
import { lstat, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { gitOptions, runGit } from './git-command.js';

/**
 * The diff hash tells two dirty runs on the same commit apart: sha256 over the bytes of
 * `git diff <base> --binary` and over the names and content hashes of untracked files. It is
 * bounded so a huge diff (a committed-by-mistake data file) cannot stall a dbt run: past the
 * limits the hash covers a deterministic prefix of the diff and only the sizes of the
 * remaining untracked files, which still differs whenever those change size.
 */

export interface DiffHashLimits {
  maxDiffBytes: number;
  maxUntrackedBytes: number;
  maxUntrackedFiles: number;
  timeoutMs: number;
}

export const DEFAULT_DIFF_LIMITS: DiffHashLimits = {
  maxDiffBytes: 64 * 1024 * 1024,
  maxUntrackedBytes: 64 * 1024 * 1024,
  maxUntrackedFiles: 10_000,
  timeoutMs: 5_000,
};

/**
 * `untracked` are paths relative to the repository root, as `git status -z` prints them.
 * Returns null when git could not produce the diff in time: a partial hash would be noise.
 */
export async function hashWorkingDiff(
  cwd: string,
  base: string,
  untracked: readonly string[],
  limits: DiffHashLimits,
  pathspec: readonly string[] = [],
): Promise<string | null> {
  const hash = createHash('sha256');
  const root = untracked.length > 0 ? runGit(cwd, ['rev-parse', '--show-toplevel'], limits.timeoutMs) : undefined;
  if (!(await hashDiffOutput(cwd, base, hash, limits, pathspec))) return null;
  if (root !== undefined) {
    const { ok, stdout } = await root;
    if (!ok) return null;
    await hashUntrackedFiles(stdout.trim(), untracked, hash, limits);
  }
  return hash.digest('hex');
}

async function hashDiffOutput(cwd: string, base: string, hash: Hash, limits: DiffHashLimits, pathspec: readonly string[]): Promise<boolean> {
  // --no-ext-diff and --no-textconv: the bytes must not depend on the user's diff drivers.
  const args = ['diff', base, '--binary', '--no-color', '--no-ext-diff', '--no-textconv', ...pathspec];
  const child = execa('git', args, { ...gitOptions(cwd, limits.timeoutMs), buffer: false, stderr: 'ignore' });
  let total = 0;
  let truncated = false;
  for await (const chunk of child.stdout) {
    const bytes = chunk as Buffer;
    const room = limits.maxDiffBytes - total;
    hash.update(bytes.length > room ? bytes.subarray(0, room) : bytes);
    total += Math.min(bytes.length, room);
    if (bytes.length > room) {
      truncated = true;
      child.kill();
      break;
    }
  }
  const result = await child;
  if (!truncated && (result.failed || result.exitCode !== 0)) return false;
  hash.update(`\0diff-bytes ${total}${truncated ? ' truncated' : ''}\0`);
  return true;
}

async function hashUntrackedFiles(root: string, untracked: readonly string[], hash: Hash, limits: DiffHashLimits): Promise<void> {
  let budget = limits.maxUntrackedBytes;
  const names = [...untracked].sort();
  for (const [index, name] of names.entries()) {
    let digest = 'not-read';
    if (index < limits.maxUntrackedFiles) {
      const entry = await hashUntrackedFile(path.resolve(root, name), budget);
      budget -= entry.bytesRead;
      digest = entry.digest;
    }
    hash.update(`untracked\0${name}\0${digest}\0`);
  }
}

async function hashUntrackedFile(file: string, budget: number): Promise<{ digest: string; bytesRead: number }> {
  try {
    const stat = await lstat(file);
    if (stat.isSymbolicLink()) return { digest: `link:${await readlink(file)}`, bytesRead: 0 };
    if (!stat.isFile()) return { digest: 'not-a-file', bytesRead: 0 };
    if (stat.size > budget) return { digest: `size:${stat.size}`, bytesRead: 0 };
    const bytes = await readFile(file);
    return { digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`, bytesRead: bytes.length };
  } catch {
    // Deleted between `git status` and now: the name alone still goes into the hash.
    return { digest: 'vanished', bytesRead: 0 };
  }
}
