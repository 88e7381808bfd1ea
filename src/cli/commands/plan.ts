import { Option, type Command } from '@commander-js/extra-typings';
import { defineCommand, type FlagsOf } from '../command-module.js';
import { ExitCode } from '../../errors.js';
import { selectorWords, type PlanResult } from '../../plan/index.js';
import { printJson, type CliIo } from '../io.js';
import { planFromFlags } from '../planned-invocation.js';
import { printExplain, printPlan } from '../print-plan.js';
import { findNode } from '../../app/plan.js';

const options = (command: Command) =>
  command
    .option('-s, --select <selectors...>', "dbt's simple selectors: names, tag:, path:, resource_type:, + and n+ operators")
    .option('--exclude <selectors...>', 'the same forms, taken out')
    .option('--target <name>', "count only builds on this dbt target (default: the planned invocation's)")
    .option('--branch <name>', "count only builds on this line of history (default: the planned invocation's)")
    .option('--defer-to <branch>', "nodes never built on this branch may reuse that branch's builds")
    .option('--invocation <id>', 'plan an archived invocation (id, unique prefix or @branch) instead of target/')
    .addOption(
      new Option('--format <format>', 'table, json, selector (nodes to build) or exclude (nodes to reuse)')
        .choices(['table', 'json', 'selector', 'exclude'] as const)
        .default('table' as const),
    )
    .option('--explain <node>', "print the checks behind one node's verdict")
    // false with --no-record: a plan only read (by an agent, say) leaves no trace.
    .option('--no-record', 'do not record the plan in the archive')
    .option('--json', 'same as --format json');

type PlanCommandFlags = FlagsOf<typeof options>;

export default defineCommand(options, plan);

/** Verdicts for the manifest in target/: reuse or build, with the reason. Recorded in the archive. */
async function plan(io: CliIo, flags: PlanCommandFlags): Promise<number> {
  // --explain is explain's reading (explain.ts): a plan shown whole is recorded, one node's checks are not.
  const result = await planFromFlags(io, flags, { record: flags.record !== false && !flags.explain });
  // A typo in a selector plans nothing; dbt says "Nothing to do", and so must we.
  if (result.nodes.length === 0 && (flags.select?.length ?? 0) > 0)
    io.stderr(`note: --select ${flags.select!.join(' ')} matched no model, seed, snapshot or test of the manifest: nothing is planned.\n`);
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
