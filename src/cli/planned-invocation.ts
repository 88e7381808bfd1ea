import { captureProject } from '../capture/session.js';
import type { AtticConfig } from '../config/resolve.js';
import { AtticError } from '../errors.js';
import { makePlan, type PlanOptions, type PlanResult } from '../plan/index.js';
import { updateStoreAfter } from './after-capture.js';
import { loadConfig, type GlobalFlags } from './context.js';
import type { CliIo } from './io.js';
import { TOOL_VERSION } from './version.js';

/** The flags `plan` and `explain` share. */
export interface PlanFlags extends GlobalFlags {
  invocation?: string;
  target?: string;
  deferTo?: string;
  select?: string[];
  exclude?: string[];
}

/** Captures target/ unless an invocation is named, then plans it. */
export async function planFromFlags(io: CliIo, flags: PlanFlags, extra: Partial<PlanOptions> = {}): Promise<PlanResult> {
  const config = loadConfig(io, flags);
  return makePlan(config, {
    invocation: await plannedInvocation(io, config, flags.invocation),
    from: flags.invocation ? 'named' : 'target',
    target: flags.target,
    branch: flags.branch,
    deferTo: flags.deferTo,
    select: flags.select,
    exclude: flags.exclude,
    ...extra,
  });
}

/**
 * The invocation a plan is for: the one named, else the manifest in target/ (what `dbt parse`
 * or `dbt compile` just wrote), captured first so that the plan reads it from the archive like
 * everything else and can be recorded beside it.
 */
export async function plannedInvocation(io: CliIo, config: AtticConfig, named: string | undefined): Promise<string> {
  if (named) return named;
  const outcome = await captureProject(config, { phase: 'manual', toolVersion: TOOL_VERSION, env: io.env });
  await updateStoreAfter(io, config, [outcome], true);
  const manifest = outcome.plan.artifacts.find((p) => ('item' in p ? p.item.artifact : p.artifact) === 'manifest');
  if (manifest && 'item' in manifest) return manifest.item.invocationId;
  const why = manifest?.action === 'error' ? ` (${manifest.path}: ${manifest.error})` : '';
  throw new AtticError(
    'not-found',
    `No readable manifest.json in ${config.targetDir?.value ?? 'target/'}${why}: run dbt parse (or compile) first, or name a past invocation with --invocation.`,
  );
}
