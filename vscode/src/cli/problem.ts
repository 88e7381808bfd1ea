import type { CliOutcome } from './run-cli.js';

/**
 * Why the CLI gave no answer, in words a view can show in place of its items. The kinds follow
 * the CLI's exit statuses (docs/commands.md, "Exit status"): 2 usage or no project, 3 nothing there (no
 * archive yet), 5 the store is held by another process, 6 a remote store unreachable.
 */
export type ProblemKind = 'missing-cli' | 'no-project' | 'no-store' | 'busy' | 'unreachable' | 'failed';

export interface CliProblem {
  kind: ProblemKind;
  message: string;
}

/** The problem an outcome shows, or null when the command succeeded. */
export function problemOf(outcome: CliOutcome, executable: string): CliProblem | null {
  if (outcome.spawnError) return spawnProblem(outcome.spawnError, executable);
  if (outcome.exitCode === 0) return null;
  const said = errorMessageOf(outcome);
  switch (outcome.exitCode) {
    case 2:
      return said.code === 'project-not-found'
        ? { kind: 'no-project', message: `No dbt project here: ${said.message}` }
        : { kind: 'failed', message: said.message };
    case 3:
      return /no archive/i.test(said.message)
        ? {
            kind: 'no-store',
            message: `No dbtattic history yet. Run \`dbtattic run -- dbt build\` (or \`dbtattic capture\`) in the project; this view fills in by itself.`,
          }
        : { kind: 'failed', message: said.message };
    case 5:
      return { kind: 'busy', message: 'The store is being written by another dbtattic process (a capture or a rebuild). This view refreshes when it is done.' };
    case 6:
      return { kind: 'unreachable', message: said.message };
    default:
      return { kind: 'failed', message: `dbtattic exited ${outcome.exitCode ?? 'on a signal'}: ${said.message}` };
  }
}

function spawnProblem(error: NodeJS.ErrnoException, executable: string): CliProblem {
  if (error.code === 'ENOENT') {
    return {
      kind: 'missing-cli',
      message: `dbtattic was not found (looked for "${executable}"). Install it with \`npm install -g dbtattic\`, or set "dbtattic.cliPath" to its path.`,
    };
  }
  if (error.code === 'EACCES') {
    return { kind: 'missing-cli', message: `"${executable}" cannot be run (not executable). Set "dbtattic.cliPath" to the dbtattic executable.` };
  }
  return { kind: 'failed', message: `dbtattic could not start: ${error.message}` };
}

/** `--json` errors are `{"error":{"code","message"}}` on stdout; anything else, stderr's text. */
function errorMessageOf(outcome: CliOutcome): { code: string | null; message: string } {
  try {
    const parsed = JSON.parse(outcome.stdout) as { error?: { code?: unknown; message?: unknown } };
    if (parsed.error && typeof parsed.error.message === 'string') {
      return { code: typeof parsed.error.code === 'string' ? parsed.error.code : null, message: parsed.error.message };
    }
  } catch {
    // Not JSON: a command without --json, or a crash before output.
  }
  const text = outcome.stderr.trim().replace(/^error:\s*/i, '');
  return { code: null, message: text || 'no message' };
}
