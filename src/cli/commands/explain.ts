import type { Command } from '@commander-js/extra-typings';
import { defineCommand, type FlagsOf } from '../command-module.js';
import { findNode } from '../../app/plan.js';
import { ExitCode } from '../../errors.js';
import { printJson, type CliIo } from '../io.js';
import { planFromFlags } from '../planned-invocation.js';
import { printExplain } from '../print-plan.js';

const options = (command: Command) =>
  command
    .argument('<node>', 'a name, selector or unique_id')
    .option('--target <name>', 'count only builds on this dbt target')
    .option('--branch <name>', 'count only builds on this line of history')
    .option('--defer-to <branch>', "nodes never built on this branch may reuse that branch's builds")
    .option('--invocation <id>', 'plan an archived invocation instead of target/')
    .option('--json', 'print as JSON');

export default defineCommand(options, explain);

/** One node's verdict with every check behind it: `dbtattic explain orders`. */
async function explain(io: CliIo, flags: FlagsOf<typeof options>): Promise<number> {
  // Explaining is reading: only `plan` itself is recorded.
  const result = await planFromFlags(io, flags, { record: false });
  const node = findNode(result, flags.args?.[0] ?? '');
  if (flags.json) printJson(io, node);
  else {
    printExplain(io, node);
    // What plan says after its table, as far as it concerns this node: target/ holding a
    // finished build concerns every verdict; freshness, only a verdict it decided.
    const concerns = (code: string): boolean =>
      code === 'finished-build' || (code === 'freshness-unknown' && node.checks.some((c) => !c.ok && c.reason === 'freshness unknown'));
    for (const notice of result.notices.filter((n) => concerns(n.code))) io.stderr(`note: ${notice.message}\n`);
  }
  return ExitCode.ok;
}
