import type { Command } from '@commander-js/extra-typings';
import { defineCommand, type FlagsOf } from '../command-module.js';
import { exportHistory } from '../../export/index.js';
import { loadConfig } from '../context.js';
import { printJson, type CliIo } from '../io.js';
import { readNotices } from '../read-notice.js';

const options = (command: Command) =>
  command
    .option('--to <dir|s3://bucket/prefix>', 'where the dataset is (default: export.to of dbtattic.yml)')
    .option(
      '--project <name>',
      "the project partition to file this store's runs under (default: export.project, else the dbt project's name and its git remote)",
    )
    .option('--dry-run', 'say what would be written and deleted, write nothing')
    .option('--json', 'print what was done as JSON');

type ExportFlags = FlagsOf<typeof options>;

export default defineCommand(options, exportCommand);

/** Writes what the dataset lacks of this store's history, and removes what forget removed. */
async function exportCommand(io: CliIo, flags: ExportFlags): Promise<number> {
  const config = loadConfig(io, flags, { exportTo: flags.to, exportProject: flags.project });
  const notices = readNotices(io, config);
  const report = await exportHistory(config, { dryRun: flags.dryRun, onNotice: notices.collect });
  if (flags.json) printJson(io, report);
  else {
    const verb = report.dryRun ? 'would write' : 'wrote';
    io.stdout(`${report.location}\n`);
    io.stderr(
      `export (${report.projects.join(', ') || 'no runs'}): ${verb} ${report.written} file(s)${report.dryRun ? '' : ` (${(report.bytes / 1e6).toFixed(2)} MB)`}, ${report.dryRun ? 'would delete' : 'deleted'} ${report.deleted}, ${report.unchanged} already there\n`,
    );
  }
  return notices.exitCode();
}
