import type { Command } from '@commander-js/extra-typings';
import { defineCommand, type FlagsOf } from '../command-module.js';
import { diffOf } from '../../app/index.js';
import { loadConfig } from '../context.js';
import { printJson, type CliIo } from '../io.js';
import { printChanges } from '../print-changes.js';
import { withProgress } from '../progress.js';
import { sayNotice } from '../read-notice.js';
import { wrappingIo } from '../wrap-lines.js';

const options = (command: Command) =>
  command
    .argument('<from>', 'an id, a unique prefix, or @branch')
    .argument('<to>', 'an id, a unique prefix, or @branch')
    .option('--nearest', 'compare nodes of a side without a manifest through the nearest earlier run that has one')
    .option('--json', 'print as JSON');

type DiffFlags = FlagsOf<typeof options>;

export default defineCommand(options, diff);

/** What changed from invocation A to B: nodes, statuses, runtimes, git range, catalog snapshot. */
async function diff(terminal: CliIo, flags: DiffFlags): Promise<number> {
  const io = wrappingIo(terminal);
  const [a, b] = flags.args ?? [];
  const config = loadConfig(io, flags);
  const { value, notice } = await withProgress(io, 'catching up', (update) =>
    diffOf(config, { from: a ?? '', to: b ?? '', nearest: flags.nearest === true }, update),
  );
  const { changes, abbreviate } = value;
  if (flags.json) printJson(io, changes);
  else {
    io.stdout(`from        ${changes.from}\nto          ${changes.to}\n`);
    printChanges(io, changes, abbreviate);
  }
  return sayNotice(io, config, notice);
}
