import { Option, type Command } from '@commander-js/extra-typings';
import { defineCommand, type FlagsOf } from '../command-module.js';
import { ExitCode } from '../../errors.js';
import { compactStore, syncForReading } from '../../store/index.js';
import { loadConfig } from '../context.js';
import { printJson, type CliIo } from '../io.js';
import { startProgress } from '../progress.js';
import { countOf } from '../../vocab/index.js';
import { formatBytes } from '../format.js';
import { catchUpCaptures } from '../after-capture.js';
import type { AtticConfig } from '../../config/resolve.js';

const options = (command: Command) =>
  command
    .option('--json', 'print the report as JSON')
    // `run` starts it with the captures it filed, to catch up on beside dbt's caller (cli/after-capture.ts).
    .addOption(new Option('--after-capture <capture-ids>').hideHelp());

type SyncFlags = FlagsOf<typeof options>;

export default defineCommand(options, sync);

/** What every reading command does first, on its own: for a CI step that only warms the cache. */
async function sync(io: CliIo, flags: SyncFlags): Promise<number> {
  const config = loadConfig(io, flags);
  if (flags.afterCapture !== undefined) return afterCapture(io, config, flags.afterCapture.split(','));
  const progress = startProgress(io, 'syncing');
  const report = await syncForReading(config, progress.update).finally(progress.stop);
  const counts = report.status === 'synced' ? report : report.status === 'rebuilt' ? report.report : null;
  // Here the user waits for the store anyway (a CI step warming the cache): compacted in the foreground.
  const outcome = report.status === 'synced' && report.compactionDue ? await compactWithProgress(io, config.databaseFile) : undefined;
  const compacted = outcome?.status === 'compacted' ? outcome : undefined;
  if (flags.json) {
    printJson(io, {
      store: config.remote?.uri ?? config.store.value,
      cache: config.databaseFile,
      status: report.status,
      invocations: counts?.invocations ?? 0,
      captures: counts?.captures ?? 0,
      ...(compacted && { compacted: { from_bytes: compacted.fromBytes, to_bytes: compacted.toBytes } }),
    });
  } else {
    const shrunk = compacted ? `; compacted from ${formatBytes(compacted.fromBytes)} to ${formatBytes(compacted.toBytes)}` : '';
    io.stderr(
      `${report.status} ${config.databaseFile}: ${countOf(counts?.invocations ?? 0, 'invocation')} from ${countOf(counts?.captures ?? 0, 'new capture')}${shrunk}\n`,
    );
  }
  return ExitCode.ok;
}

/** `run`'s catch-up, detached (cli/after-capture.ts): only what its captures filed, as a capture would. */
async function afterCapture(io: CliIo, config: AtticConfig, captureIds: string[]): Promise<number> {
  await catchUpCaptures(io, config, captureIds, true);
  return ExitCode.ok;
}

async function compactWithProgress(io: CliIo, file: string): ReturnType<typeof compactStore> {
  const progress = startProgress(io, 'compacting');
  return compactStore(file).finally(progress.stop);
}
