import type { Command } from '@commander-js/extra-typings';
import { defineCommand, type CommandModule, type FlagsOf } from './command-module.js';
import { divergedBranches, openArchive, transferArchive, type TransferReport } from '../archive/index.js';
import { AtticError, ExitCode } from '../errors.js';
import { loadConfig } from './context.js';
import { printJson, type CliIo } from './io.js';
import { startProgress } from './progress.js';

const options = (command: Command) => command.argument('[remote]', 'the other store').option('--json', 'print the report as JSON');

/** push (this store → the other) and pull (the other → this store): one command, two directions. */
export function transferCommand(direction: 'push' | 'pull'): CommandModule {
  return defineCommand(options, (io, flags) => runTransfer(io, flags, direction));
}

async function runTransfer(io: CliIo, flags: FlagsOf<typeof options>, direction: 'push' | 'pull'): Promise<number> {
  const config = loadConfig(io, { ...flags, remote: flags.args?.[0] });
  const other = config.pushRemote;
  if (!other) throw new AtticError('usage', `${direction} needs another store: 'dbtattic ${direction} s3://bucket/prefix', or 'remote:' in dbtattic.yml.`);
  const here = await openArchive(config.archiveLocation, { create: direction === 'pull', remote: config.remote });
  const there = await openArchive(other.archiveLocation, { create: direction === 'push', remote: other.remote });
  const [from, to] = direction === 'push' ? [here, there] : [there, here];
  const progress = startProgress(io, direction === 'push' ? 'pushing' : 'pulling');
  const report = await transferArchive(from, to, progress.update).finally(progress.stop);
  const diverged = divergedBranches(report);
  if (flags.json) printJson(io, { direction, from: from.location, to: to.location, ...report });
  else printReport(io, direction, to.location, report);
  if (report.damaged.length > 0) return ExitCode.damaged;
  return diverged.length > 0 ? ExitCode.partial : ExitCode.ok;
}

function printReport(io: CliIo, direction: string, to: string, report: TransferReport): void {
  io.stderr(
    `${direction}: ${report.artifactRecords} artifact record(s), ${report.captures} capture(s), ${report.objects} new object(s)${report.forgets > 0 ? `, ${report.forgets} forget(s) made there too` : ''} to ${to}\n`,
  );
  for (const b of report.branches) {
    if (b.outcome === 'diverged') {
      io.stderr(
        `${io.color.yellow('diverged:')} branch ${b.name} moved on on both sides (here ${b.source}, there ${b.target}); its head there was left as it is, and every capture of both is in both archives.\n`,
      );
    } else if (b.outcome !== 'same') io.stderr(`branch ${b.name}: ${b.outcome}\n`);
  }
  for (const d of report.damaged) {
    const what = d.invocation_id === null ? 'a capture record' : `invocation ${d.invocation_id}`;
    io.stderr(`${io.color.red('damaged:')} ${what} was left out: ${d.problem} (${d.key})\n`);
  }
  if (report.damaged.length > 0)
    io.stderr(
      `everything else was copied; run 'dbtattic verify' on the ${direction === 'push' ? 'store here' : 'store pulled from'} to see the damage, then ${direction} again\n`,
    );
}
