import { runGit } from './git-command.js';

/**
 * Where HEAD was when dbt ran, read from git's reflog, for a capture taken after dbt ended: the
 * shell wrapper captures a run before the next dbt command, often after a `git checkout`, and
 * the branch checked out then is not the one dbt ran on. Every checkout, commit and reset
 * writes a reflog entry with its time; the entries after the run say what moved since.
 */
export type HeadAt = { moved: false } | { moved: true; sha: string | null; branch: string | null };

interface Entry {
  sha: string;
  /** Seconds since the epoch. */
  time: number;
  subject: string;
}

/** How many entries are read: a run more moves ago than this is past what the reflog answers cheaply. */
const ENTRIES = 500;
const CHECKOUT = /^checkout: moving from (\S+) to (\S+)$/;
const FULL_SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/**
 * HEAD at `at`, when the reflog reaches back that far and HEAD moved since; `moved: false` when
 * nothing moved it (the present describes the run) or the reflog does not say (no entry before
 * `at`: artifacts from another machine, a reflog expired or off), where the present is all there is.
 */
export async function headAt(cwd: string, at: Date, currentBranch: string | null, timeoutMs: number): Promise<HeadAt> {
  const result = await runGit(cwd, ['reflog', 'show', '--format=%H%x09%gd%x09%gs', '--date=unix', '-n', String(ENTRIES), 'HEAD'], timeoutMs);
  if (!result.ok) return { moved: false };
  return rewind(parseEntries(result.stdout), at.getTime() / 1000, currentBranch);
}

/** Newest first, as git lists them. Pure, for tests. */
export function rewind(entries: readonly Entry[], at: number, currentBranch: string | null): HeadAt {
  const before = entries.find((e) => e.time <= at);
  const after = entries.filter((e) => e.time > at);
  if (!before || after.length === 0) return { moved: false };
  // The first checkout after the run left the branch the run was on.
  const checkout = [...after]
    .reverse()
    .map((e) => CHECKOUT.exec(e.subject))
    .find((m) => m !== null);
  const branch = checkout ? checkout[1]! : currentBranch;
  return { moved: true, sha: before.sha, branch: branch !== null && FULL_SHA.test(branch) ? null : branch };
}

export function parseEntries(text: string): Entry[] {
  const entries: Entry[] = [];
  for (const line of text.split('\n')) {
    const [sha, selector, ...subject] = line.split('\t');
    const time = Number(/@\{(\d+)\}$/.exec(selector ?? '')?.[1]);
    if (sha && Number.isFinite(time)) entries.push({ sha, time, subject: subject.join('\t') });
  }
  return entries;
}
