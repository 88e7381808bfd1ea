import { execa, type Options } from 'execa';

/**
 * How we run git: never throwing (no git, not a repository and a hung git all come back as a
 * failed result), bounded by a timeout, and without side effects on the user's repository.
 */

/**
 * GIT_OPTIONAL_LOCKS=0 stops `git status` from refreshing the index, which takes index.lock and
 * could make the user's own git command (or dbt's) fail while we run beside it.
 */
export const GIT_ENV = { GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' } as const;

export interface GitResult {
  ok: boolean;
  stdout: string;
}

export async function runGit(cwd: string, args: readonly string[], timeoutMs: number): Promise<GitResult> {
  const result = await execa('git', args, gitOptions(cwd, timeoutMs));
  return { ok: !result.failed && result.exitCode === 0, stdout: String(result.stdout ?? '') };
}

export function gitOptions(cwd: string, timeoutMs: number) {
  return {
    cwd,
    env: GIT_ENV,
    timeout: timeoutMs,
    reject: false,
    stdin: 'ignore',
    stripFinalNewline: false,
    forceKillAfterDelay: 500,
  } as const satisfies Options;
}
