import type { Command } from '@commander-js/extra-typings';
import { defineCommand, type FlagsOf } from '../command-module.js';
import { openArchive } from '../../archive/index.js';
import { ExitCode } from '../../errors.js';
import { pruneArchive, resolvePruneGrace } from '../../retention/index.js';
import { countOf } from '../../vocab/index.js';
import { loadConfig } from '../context.js';
import { formatBytes } from '../format.js';
import { printJson, type CliIo } from '../io.js';

const options = (command: Command) =>
  command
    .option('--dry-run', 'delete nothing: say what would go')
    .option('--grace <duration>', 'keep unreferenced objects younger than this (default 1h, or retention.prune_grace; 0 for none)')
    .option('--json', 'print the report as JSON');

type PruneFlags = FlagsOf<typeof options>;

export default defineCommand(options, prune);

/** Deletes the objects no record needs, beside captures at work (docs/retention.md). */
async function prune(io: CliIo, flags: PruneFlags): Promise<number> {
  const config = loadConfig(io, flags);
  const graceMs = resolvePruneGrace(flags.grace, config.retention?.value);
  const backend = await openArchive(config.archiveLocation, { create: false, remote: config.remote });
  const report = await pruneArchive(backend, { now: new Date(), graceMs, dryRun: Boolean(flags.dryRun), onNote: (what) => io.stderr(`prune: ${what}\n`) });
  if (flags.json) {
    printJson(io, {
      dry_run: report.dryRun,
      grace_ms: graceMs,
      files: report.files,
      chunks: report.chunks,
      bytes: report.bytes,
      young: report.young,
      rescued: report.rescued,
    });
    return ExitCode.ok;
  }
  const verb = report.dryRun ? 'would delete' : 'deleted';
  io.stdout(`${verb} ${countOf(report.files, 'file')} and ${countOf(report.chunks, 'chunk')}: ${formatBytes(report.bytes)}\n`);
  if (report.young > 0) io.stderr(`${countOf(report.young, 'unreferenced object')} younger than the grace period stay for a later prune\n`);
  if (report.rescued > 0) io.stderr(`${countOf(report.rescued, 'object')} reused by a capture while prune ran were kept\n`);
  return ExitCode.ok;
}
