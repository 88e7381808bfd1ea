import { exportHistory } from '../../export/index.js';
import { loadConfig, type GlobalFlags } from '../context.js';
import { printJson, type CliIo } from '../io.js';
import { readNotices } from '../read-notice.js';

interface ExportFlags extends GlobalFlags {
  to?: string;
  project?: string;
  dryRun?: boolean;
  json?: boolean;
}

/** Writes what the dataset lacks of this store's history, and removes what forget removed. */
export default async function exportCommand(io: CliIo, flags: ExportFlags): Promise<number> {
  const config = loadConfig(io, flags, { exportTo: flags.to, exportProject: flags.project });
  const notices = readNotices(io, config);
  const report = await exportHistory(config, { dryRun: flags.dryRun, onNotice: notices.collect });
  if (flags.json) printJson(io, report);
  else {
    const verb = report.dryRun ? 'would write' : 'wrote';
    io.stdout(`${report.location}\n`);
    io.stderr(`export (${report.projects.join(', ') || 'no runs'}): ${verb} ${report.written} file(s)${report.dryRun ? '' : ` (${(report.bytes / 1e6).toFixed(2)} MB)`}, ${report.dryRun ? 'would delete' : 'deleted'} ${report.deleted}, ${report.unchanged} already there\n`);
  }
  return notices.exitCode();
}
