import { ExitCode } from '../../errors.js';
import { makePlan, selectorWords, type PlanResult } from '../../plan/index.js';
import { loadConfig, type GlobalFlags } from '../context.js';
import { printJson, type CliIo } from '../io.js';
import { plannedInvocation } from '../planned-invocation.js';
import { printExplain, printPlan } from '../print-plan.js';
import { findNode } from './explain.js';

export interface PlanFlags extends GlobalFlags {
  invocation?: string;
  target?: string;
  deferTo?: string;
  select?: string[];
  exclude?: string[];
  format?: string;
  explain?: string;
  json?: boolean;
}

/** Verdicts for the manifest in target/: reuse or build, with the reason. Recorded in the archive. */
export default async function plan(io: CliIo, flags: PlanFlags): Promise<number> {
  const config = loadConfig(io, flags);
  const result = await makePlan(config, {
    invocation: await plannedInvocation(io, config, flags.invocation),
    target: flags.target,
    branch: flags.branch,
    deferTo: flags.deferTo,
    select: flags.select,
    exclude: flags.exclude,
  });
  if (flags.explain) {
    printExplain(io, findNode(result, flags.explain));
    return ExitCode.ok;
  }
  printResult(io, result, flags.json ? 'json' : (flags.format ?? 'table'));
  return ExitCode.ok;
}

function printResult(io: CliIo, result: PlanResult, format: string): void {
  switch (format) {
    case 'json':
      printJson(io, result);
      return;
    case 'selector':
    case 'exclude': {
      // Words on one line; nothing at all when there is nothing to name, so $(…) expands to nothing.
      const words = selectorWords(result, format === 'selector' ? 'build' : 'reuse');
      if (words.length > 0) io.stdout(`${words.join(' ')}\n`);
      return;
    }
    default:
      printPlan(io, result);
  }
}
