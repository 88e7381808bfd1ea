/**
 * Parses `git status --porcelain=v2 --branch -z`: the one git call that tells us the commit,
 * the branch, and whether the working tree differs from it. Pure, so it is tested on strings.
 */

export interface GitStatus {
  /** null before the first commit ("(initial)"). */
  sha: string | null;
  /** null on a detached HEAD. */
  branch: string | null;
  /** Tracked files that differ from HEAD (staged, unstaged, or in conflict). */
  changedCount: number;
  /** Untracked paths relative to the repository root (with -z, git does not make them relative to the cwd). */
  untracked: string[];
}

export function parseGitStatus(output: string): GitStatus {
  const status: GitStatus = { sha: null, branch: null, changedCount: 0, untracked: [] };
  const records = output.split('\0');
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    if (record.startsWith('# branch.oid ')) status.sha = headerValue(record, '# branch.oid ', '(initial)');
    else if (record.startsWith('# branch.head ')) status.branch = headerValue(record, '# branch.head ', '(detached)');
    else if (record.startsWith('? ')) status.untracked.push(record.slice(2));
    else if (record.startsWith('1 ') || record.startsWith('u ')) status.changedCount++;
    else if (record.startsWith('2 ')) {
      // A rename or copy: with -z its original path follows as a record of its own.
      status.changedCount++;
      i++;
    }
  }
  return status;
}

function headerValue(record: string, prefix: string, absent: string): string | null {
  const value = record.slice(prefix.length);
  return value === absent || value === '' ? null : value;
}

export function isDirty(status: GitStatus): boolean {
  return status.changedCount > 0 || status.untracked.length > 0;
}
