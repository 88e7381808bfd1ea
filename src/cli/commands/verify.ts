import type { Command } from '@commander-js/extra-typings';
import { defineCommand, type FlagsOf } from '../command-module.js';
import path from 'node:path';
import { openArchiveForCheck, repairArchive, verifyArchive, type VerifyReport } from '../../archive/index.js';
import { intactCopies } from '../../capture/index.js';
import { ExitCode } from '../../errors.js';
import { summarizeRunResults } from '../../extract/index.js';
import { loadConfig } from '../context.js';
import { printJson, type CliIo } from '../io.js';
import { startProgress } from '../progress.js';
import { wrappingIo } from '../wrap-lines.js';
import { countOf } from '../../vocab/index.js';

const options = (command: Command) =>
  command
    .option('--repair', 're-write damaged objects from intact copies (target/, state directories), then say what remains lost')
    .option('--json', 'print the report as JSON');

type VerifyFlags = FlagsOf<typeof options>;

export default defineCommand(options, verify);

async function verify(terminal: CliIo, flags: VerifyFlags): Promise<number> {
  const io = wrappingIo(terminal);
  const config = loadConfig(io, flags);
  const backend = await openArchiveForCheck(config.archiveLocation, config.remote);
  const progress = startProgress(io, 'verifying');
  if (!flags.repair) {
    const report = await verifyArchive(backend, progress.update, summarizeRunResults).finally(progress.stop);
    if (flags.json) printJson(io, report);
    else printReport(io, report, (n) => countOf(n, 'problem'));
    if (!report.ok && !flags.json)
      io.stderr(
        "To mend what can be: 'dbtattic verify --repair' restores objects from intact copies (the files in target/, state directories) and branch refs from the capture records, then says what remains lost.\n",
      );
    return report.ok ? ExitCode.ok : ExitCode.damaged;
  }
  // Intact copies: what target/ holds now (artifacts, SQL), and the state directories written from the archive.
  const targetDir = config.targetDir?.value ?? null;
  const dirs = [targetDir, path.join(config.store.value, 'state')].filter((dir): dir is string => Boolean(dir));
  const repair = await repairArchive(backend, () => intactCopies(dirs, targetDir), progress.update, summarizeRunResults).finally(progress.stop);
  if (flags.json) {
    printJson(io, { ...repair.after, restored: repair.restored });
  } else {
    const { format, chunks, files, refs } = repair.restored;
    io.stderr(
      `restored: ${format ? 'FORMAT, ' : ''}${refs > 0 ? `${countOf(refs, 'branch ref')} from the capture records, ` : ''}${countOf(chunks, 'chunk')}, ${countOf(files, 'file')}, from intact copies in ${dirs.join(' and ')}\n`,
    );
    printReport(io, repair.after, (n) => `${countOf(n, 'problem remains', 'problems remain')}: lost unless an intact copy of the artifact is captured again`);
  }
  return repair.after.ok ? ExitCode.ok : ExitCode.damaged;
}

function printReport(io: CliIo, report: VerifyReport, problems: (n: number) => string): void {
  const { chunks, files, artifactRecords, captureRecords } = report.checked;
  for (const problem of report.problems) io.stdout(`${io.color.red(problem.kind)}\t${problem.key}\t${problem.message}\n`);
  const summary = `checked ${countOf(chunks, 'chunk')}, ${countOf(files, 'artifact')}, ${countOf(artifactRecords, 'artifact record')}, ${countOf(captureRecords, 'capture record')}`;
  // The verdict is the answer verify was asked for: data, so stdout, after the problems it sums up.
  io.stdout(report.ok ? `${io.color.green('ok')}: ${summary}\n` : `${io.color.red(problems(report.problems.length))}: ${summary}\n`);
}
