import { ExitCode } from '../../errors.js';
import { rebuildProjectStore } from '../../store/index.js';
import { loadConfig, type GlobalFlags } from '../context.js';
import { printJson, type CliIo } from '../io.js';
import { startProgress } from '../progress.js';
import { countOf } from '../../vocab/index.js';

interface RebuildFlags extends GlobalFlags {
  json?: boolean;
}

/** Re-derives the whole store from the archive; the old store serves readers until the swap. */
export default async function rebuild(io: CliIo, flags: RebuildFlags): Promise<number> {
  const config = loadConfig(io, flags);
  const progress = startProgress(io, 'rebuilding');
  const report = await rebuildProjectStore(config, progress.update).finally(progress.stop);
  if (flags.json) {
    printJson(io, { store: config.databaseFile, ...report });
  } else {
    io.stderr(`rebuilt ${config.databaseFile}: ${countOf(report.invocations, 'invocation')} from ${countOf(report.captures, 'capture')}\n`);
    for (const p of report.problems) io.stderr(`${io.color.yellow('warning:')} ${p.artifact_type} of ${p.invocation_id} left out: ${p.message}\n`);
  }
  return ExitCode.ok;
}
