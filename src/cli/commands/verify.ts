import { openArchive, verifyArchive } from '../../archive/index.js';
import { ExitCode } from '../../errors.js';
import { loadConfig, type GlobalFlags } from '../context.js';
import { printJson, type CliIo } from '../io.js';
import { startProgress } from '../progress.js';
import { countOf } from '../../vocab/index.js';

interface VerifyFlags extends GlobalFlags {
  json?: boolean;
}

export default async function verify(io: CliIo, flags: VerifyFlags): Promise<number> {
  const config = loadConfig(io, flags);
  const backend = await openArchive(config.archiveLocation, { create: false, remote: config.remote });
  const progress = startProgress(io, 'verifying');
  const report = await verifyArchive(backend, progress.update).finally(progress.stop);
  if (flags.json) {
    printJson(io, report);
  } else {
    const { chunks, files, artifactRecords, captureRecords } = report.checked;
    for (const problem of report.problems) io.stdout(`${io.color.red(problem.kind)}\t${problem.key}\t${problem.message}\n`);
    const summary = `checked ${countOf(chunks, 'chunk')}, ${countOf(files, 'artifact')}, ${countOf(artifactRecords, 'artifact record')}, ${countOf(captureRecords, 'capture record')}`;
    // The verdict is the answer verify was asked for: data, so stdout, after the problems it sums up.
    io.stdout(report.ok ? `${io.color.green('ok')}: ${summary}\n` : `${io.color.red(countOf(report.problems.length, 'problem'))}: ${summary}\n`);
  }
  return report.ok ? ExitCode.ok : ExitCode.damaged;
}
