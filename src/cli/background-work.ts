import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AtticConfig } from '../config/resolve.js';
import type { CliIo } from './io.js';

// The bundle (dist/bundle/) and the compiled modules sit at the same depth (scripts/bundle-cli.mjs).
const BIN = fileURLToPath(new URL('../../bin/dbtattic.js', import.meta.url));

/**
 * Starts `dbtattic compact` on its own, detached: the store's copy (most of a minute at 1,000
 * runs) then runs beside dbt instead of in front of it, and outlives the command that found
 * it due. It is claimed for the child at once, so a second capture does not start another.
 * Compaction only ever saves space: a child that fails or is killed loses nothing.
 */
export async function compactInBackground(io: CliIo, config: AtticConfig): Promise<void> {
  const { claimCompaction, compactionRunning } = await import('../store/index.js');
  if (compactionRunning(config.databaseFile)) return;
  const pid = startDetached(io, config, ['compact', '--quiet']);
  if (pid !== undefined) await claimCompaction(config.databaseFile, pid).catch(() => undefined);
}

/**
 * Runs `dbtattic <args> --store <this store>` in a session of its own, with nothing to print to:
 * it outlives this process, and a Ctrl-C or a CI runner's kill of dbt's process group leaves it be.
 * Only work the next reading command would do anyway goes there: losing it loses nothing.
 */
export function startDetached(io: CliIo, config: AtticConfig, args: readonly string[]): number | undefined {
  const child = spawn(process.execPath, [BIN, ...args, '--store', path.resolve(io.cwd, config.localDir)], {
    cwd: io.cwd,
    env: io.env,
    detached: true,
    stdio: 'ignore',
  });
  child.on('error', () => undefined);
  child.unref();
  return child.pid;
}
