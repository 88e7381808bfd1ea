import { ExitCode } from '../../errors.js';
import { selectorWords, type PlanResult } from '../../plan/index.js';
import { printJson, type CliIo } from '../io.js';
import { planFromFlags, type PlanFlags } from '../planned-invocation.js';
import { printExplain, printPlan } from '../print-plan.js';
import { findNode } from './explain.js';

interface PlanCommandFlags extends PlanFlags {
  format?: string;
  /** false with --no-record: a plan only read (by an agent, say) leaves no trace. */
  record?: boolean;
  explain?: string;
  json?: boolean;
}

/** Verdicts for the manifest in target/: reuse or build, with the reason. Recorded in the archive. */
export default async function plan(io: CliIo, flags: PlanCommandFlags): Promise<number> {
  // --explain is explain's reading (explain.ts): a plan shown whole is recorded, one node's checks are not.
  const result = await planFromFlags(io, flags, { record: flags.record !== false && !flags.explain });
  // A typo in a selector plans nothing; dbt says "Nothing to do", and so must we.
  if (result.nodes.length === 0 && (flags.select?.length ?? 0) > 0) io.stderr(`note: --select ${flags.select!.join(' ')} matched no model, seed, snapshot or test of the manifest: nothing is planned.\n`);
  if (flags.explain) printExplain(io, findNode(result, flags.explain));
  else printResult(io, result, flags.json ? 'json' : (flags.format ?? 'table'));
  // Talk, after the table: in --json the notices are a field of the plan.
  if (!flags.json && flags.format !== 'json') for (const notice of result.notices) io.stderr(`note: ${notice.message}\n`);
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
