import type { Command } from '@commander-js/extra-typings';
import { defineCommand, type FlagsOf } from '../command-module.js';
import { ExitCode } from '../../errors.js';
import { rebuildProjectStore, type IngestProblem } from '../../store/index.js';
import { loadConfig } from '../context.js';
import { printJson, type CliIo } from '../io.js';
import { startProgress } from '../progress.js';
import { countOf } from '../../vocab/index.js';

const options = (command: Command) => command.option('--json', 'print the report as JSON');

type RebuildFlags = FlagsOf<typeof options>;

export default defineCommand(options, rebuild);

/** Re-derives the whole store from the archive; the old store serves readers until the swap. */
async function rebuild(io: CliIo, flags: RebuildFlags): Promise<number> {
  const config = loadConfig(io, flags);
  const progress = startProgress(io, 'rebuilding');
  const report = await rebuildProjectStore(config, progress.update).finally(progress.stop);
  if (flags.json) {
    printJson(io, { store: config.databaseFile, ...report });
  } else {
    if (report.movedAside)
      io.stderr(
        `${io.color.yellow('warning:')} the old store could not be opened (${report.movedAside.reason}); it was moved aside to ${report.movedAside.to}\n`,
      );
    io.stderr(`rebuilt ${config.databaseFile}: ${countOf(report.invocations, 'invocation')} from ${countOf(report.captures, 'capture')}\n`);
    for (const p of report.problems) io.stderr(`${io.color.yellow('warning:')} ${describeLeftOut(p)} left out: ${p.message}\n`);
    if (report.problems.length > 0)
      io.stderr(
        `${countOf(report.problems.length, 'artifact or record', 'artifacts or records')} left out; the rest was rebuilt. See them with: dbtattic query "select * from ingest_problem"\n`,
      );
  }
  // Something left out is a partial rebuild, which a script must be able to tell from a whole one.
  return report.problems.length > 0 ? ExitCode.partial : ExitCode.ok;
}

function describeLeftOut(problem: IngestProblem): string {
  if (problem.artifact_type && problem.invocation_id) return `${problem.artifact_type} of ${problem.invocation_id}`;
  return `record ${problem.archive_key ?? '?'}`;
}
