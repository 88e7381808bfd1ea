import type { Command } from '@commander-js/extra-typings';
import { defineCommand, type FlagsOf } from '../command-module.js';
import { dbtPaths } from '../../capture/dbt-flags.js';
import { runWithCapture } from '../../capture/run.js';
import { AtticError } from '../../errors.js';
import { archiveAbbreviator } from '../abbreviate.js';
import { loadConfig } from '../context.js';
import { formatBytes } from '../format.js';
import type { CliIo } from '../io.js';
import { TOOL_VERSION } from '../version.js';
import { catchUpInBackground } from '../after-capture.js';

const options = (command: Command) =>
  command
    .argument('<command...>', 'the command to run, after --')
    .passThroughOptions()
    .option('--branch <name>', 'the line of history to file these captures on')
    .option('--quiet', 'print nothing of our own unless something failed');

type RunFlags = FlagsOf<typeof options>;

export default defineCommand(options, run);

/** dbt's own output passes straight through; ours is one line on stderr at the end. */
async function run(io: CliIo, flags: RunFlags): Promise<number> {
  const argv = flags.args ?? [];
  if (argv.length === 0) throw new AtticError('usage', 'Give the command to run after --, e.g. dbtattic run -- dbt build.');
  // Where dbt is told its project and target/ are is where to capture, unless dbtattic was told.
  const told = dbtPaths(argv);
  const config = loadConfig(io, {
    ...flags,
    projectDir: flags.projectDir ?? told.projectDir ?? undefined,
    targetPath: flags.targetPath ?? told.targetPath ?? undefined,
  });
  const outcome = await runWithCapture(config, argv, TOOL_VERSION, { ...io.env });
  for (const warning of outcome.warnings) io.stderr(`${io.color.yellow('dbtattic warning:')} ${warning}\n`);
  if (outcome.command.spawnError) io.stderr(`${io.color.red('dbtattic:')} ${outcome.command.spawnError}\n`);
  const captured = outcome.post?.record?.artifacts.filter((a) => a.status === 'captured') ?? [];
  const outputs = outcome.post?.record?.outputs ?? [];
  // A file left unreadable before the run (say, by a killed dbt) is as much a loss as one after it.
  const failed = [outcome.pre, outcome.post].flatMap((c) => c?.record?.artifacts.filter((a) => a.status === 'error') ?? []);
  for (const a of failed) io.stderr(`${io.color.yellow('dbtattic warning:')} ${a.path}: ${a.error}\n`);
  for (const o of outputs.filter((x) => x.status === 'error')) io.stderr(`${io.color.yellow('dbtattic warning:')} ${o.output}: ${o.error}\n`);
  if (!flags.quiet && captured.length > 0) {
    const ids = captured.flatMap((a) => (a.invocation_id ? [a.invocation_id] : []));
    const abbreviate = await archiveAbbreviator(config, ids);
    const invocations = [...new Set(ids.map(abbreviate))].join(', ');
    const mine = outputs.filter((o) => o.status === 'captured' && captured.some((a) => a.invocation_id === o.invocation_id));
    const bytes = [...captured, ...mine].reduce((sum, a) => sum + a.stored_bytes, 0);
    const also = mine.map((o) => (o.output === 'sql' ? `its SQL (${o.entries} files)` : 'its log')).join(' and ');
    io.stderr(
      io.color.dim(
        `dbtattic: captured ${captured.map((a) => a.artifact).join(', ')} of invocation ${invocations}${also ? `, ${also}` : ''} (${formatBytes(bytes)} new)\n`,
      ),
    );
  }
  // dbt has ended and its caller waits for its exit code: the store catches up beside, not in front.
  catchUpInBackground(io, config, [outcome.pre, outcome.post]);
  return outcome.command.exitCode;
}
