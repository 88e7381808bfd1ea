import { noticeLines, type NoticeLine } from '../app/notice.js';
import { ExitCode } from '../errors.js';
import { isDamaged } from '../store/db/damage.js';
import type { ReadNotice } from '../store/sync/project-store.js';
import type { AtticConfig } from '../config/resolve.js';
import { compactInBackground } from './background-work.js';
import type { CliIo } from './io.js';

/**
 * What a reading command says beside its answer (on stderr: stdout stays data), and the exit
 * status it implies: 1 when the archive is damaged and the answer leaves something out.
 */
export async function sayNotice(io: CliIo, config: AtticConfig, notice: ReadNotice | null): Promise<number> {
  if (!notice) return ExitCode.ok;
  if (notice.compactionDue) await compactInBackground(io, config).catch(() => undefined);
  for (const line of noticeLines(notice)) sayLine(io, line);
  return isDamaged(notice.damage) ? ExitCode.partial : ExitCode.ok;
}

/** A warning in yellow; a note as it is. */
export function sayLine(io: CliIo, line: NoticeLine): void {
  io.stderr(line.level === 'warning' ? `${io.color.yellow('warning:')} ${line.text}\n` : `${line.text}\n`);
}

/** For a read that is no question of the application core (export): the notice it was given, said once it ends. */
export function readNotices(io: CliIo, config: AtticConfig): { collect: (notice: ReadNotice) => void; exitCode: () => Promise<number> } {
  let held: ReadNotice | null = null;
  return {
    collect: (notice) => {
      held = notice;
    },
    exitCode: () => sayNotice(io, config, held),
  };
}
