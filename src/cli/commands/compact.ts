import type { Command } from '@commander-js/extra-typings';
import { defineCommand, type FlagsOf } from '../command-module.js';
import { ExitCode } from '../../errors.js';
import { compactStore, type CompactOutcome } from '../../store/index.js';
import { loadConfig } from '../context.js';
import { printJson, type CliIo } from '../io.js';
import { formatBytes } from '../format.js';

const options = (command: Command) =>
  command
    .option('--force', 'copy it even when little would be saved')
    .option('--quiet', 'print nothing unless something failed')
    .option('--json', 'print the outcome as JSON');

type CompactFlags = FlagsOf<typeof options>;

export default defineCommand(options, compact);

/** The store's compaction (store/sync/compact-store.ts), on its own: what capture starts in the background. */
async function compact(io: CliIo, flags: CompactFlags): Promise<number> {
  const config = loadConfig(io, flags);
  const outcome = await compactStore(config.databaseFile, { force: flags.force });
  if (flags.json) printJson(io, { store: config.databaseFile, ...jsonOf(outcome) });
  else if (!flags.quiet || outcome.status === 'busy') io.stderr(`${describe(outcome, config.databaseFile)}\n`);
  return outcome.status === 'busy' || outcome.status === 'changed' ? ExitCode.busy : ExitCode.ok;
}

function jsonOf(outcome: CompactOutcome): Record<string, unknown> {
  if (outcome.status === 'compacted') return { status: outcome.status, from_bytes: outcome.fromBytes, to_bytes: outcome.toBytes };
  if (outcome.status === 'not-needed') return { status: outcome.status, bytes: outcome.bytes, free_bytes: outcome.freeBytes };
  return { status: outcome.status };
}

function describe(outcome: CompactOutcome, file: string): string {
  switch (outcome.status) {
    case 'compacted':
      return `compacted ${file} from ${formatBytes(outcome.fromBytes)} to ${formatBytes(outcome.toBytes)}`;
    case 'not-needed':
      return `${file} is ${formatBytes(outcome.bytes)}, ${formatBytes(outcome.freeBytes)} of it free: not worth copying yet (--force copies it anyway)`;
    case 'missing':
      return `no store at ${file} yet: nothing to compact`;
    case 'busy':
      return `the store ${file} is being written or compacted by another process; try again when it finishes`;
    case 'changed':
      return `the store ${file} was written while it was copied; the copy was dropped. Try again`;
  }
}
