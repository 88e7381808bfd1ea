import { existsSync } from 'node:fs';
import type { RunInfo } from '../archive/index.js';
import { redactArgv } from '../vocab/index.js';
import type { AtticConfig } from '../config/resolve.js';
import { dbtPaths } from './dbt-flags.js';
import { runCommand, type CommandOutcome } from './run-command.js';
import { takeRunContext } from './run-context.js';
import { captureProject } from './session.js';
import type { CaptureOutcome } from './capture.js';

export interface RunOutcome {
  command: CommandOutcome;
  pre: CaptureOutcome | null;
  post: CaptureOutcome | null;
  /** Capture problems: reported as warnings, never allowed to change dbt's exit code. */
  warnings: string[];
}

/**
 * Captures before (what an earlier command left), runs the command in the project directory,
 * then captures after, also when the command failed or was interrupted.
 */
export async function runWithCapture(config: AtticConfig, argv: string[], toolVersion: string, env: NodeJS.ProcessEnv): Promise<RunOutcome> {
  const warnings: string[] = [];
  const attempt = async (label: string, work: () => Promise<CaptureOutcome>): Promise<CaptureOutcome | null> => {
    try {
      return await work();
    } catch (error) {
      warnings.push(`${label} capture failed: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    }
  };
  const targetExists = config.targetDir !== null && existsSync(config.targetDir.value);
  const pre = targetExists ? await attempt('pre-run', () => captureProject(config, { phase: 'pre', toolVersion, env })) : null;
  const cwd = dbtWorkingDir(config, argv, env);
  // The context of the moment dbt starts, not of when it ends: the tree may change meanwhile.
  // git's view of it is read beside dbt's start (a third of a second with 1,000 untracked
  // models), since dbt writes only target/ and logs/, which it leaves out; the catalog's
  // snapshot is of the data dbt is about to read, so it is taken before dbt starts.
  const taking = takeRunContext(config, env, 'run-start', argv).catch((error: unknown) => {
    warnings.push(`no run context taken (the capture takes its own after dbt): ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  });
  if (config.catalog) await taking;
  const command = await runCommand(argv, { cwd, env });
  const context = await taking;
  // Never fatal, but said: otherwise a broken `catalog:` only shows in `info` and `inspect`.
  if (context?.catalog?.provider === 'invalid')
    warnings.push(`no catalog snapshot taken: ${context.catalog.reason ?? 'the catalog: section of dbtattic.yml is invalid'}`);
  const run: RunInfo = {
    // The archive is kept for good: --vars values and credential flags never go in (docs/reliability.md).
    argv: redactArgv(argv),
    started_at: command.startedAt.toISOString(),
    ended_at: command.endedAt.toISOString(),
    exit_code: command.exitCode,
    signal: command.signal,
  };
  const post = await attempt('post-run', () => captureProject(config, { phase: 'post', toolVersion, run, context, env }));
  return { command, pre, post, warnings };
}

/**
 * Where dbt runs: the project, so that `dbtattic run -- dbt build` works from below it as from
 * it, unless dbt is told where its project is (its --project-dir, DBT_PROJECT_DIR): a relative
 * path there is relative to where the user is, as it is for dbt run bare.
 */
function dbtWorkingDir(config: AtticConfig, argv: readonly string[], env: NodeJS.ProcessEnv): string {
  if (dbtPaths(argv).projectDir !== null || env.DBT_PROJECT_DIR) return config.cwd;
  return config.projectDir?.value ?? config.cwd;
}
