import { ExitCode } from '../errors.js';
import { isDamaged, type ReadNotice } from '../store/index.js';
import { countOf } from '../vocab/index.js';
import type { AtticConfig } from '../config/resolve.js';
import { compactInBackground } from './background-work.js';
import type { CliIo } from './io.js';

/**
 * What a reading command says beside its answer (on stderr: stdout stays data), and the exit
 * status it implies: 1 when the archive is damaged and the answer leaves something out.
 */
export function readNotices(io: CliIo, config: AtticConfig): { collect: (notice: ReadNotice) => void; exitCode: () => Promise<number> } {
  let held: ReadNotice | null = null;
  return {
    collect: (notice) => {
      held = notice;
    },
    exitCode: async () => {
      if (!held) return ExitCode.ok;
      if (held.compactionDue) await compactInBackground(io, config).catch(() => undefined);
      return tell(io, held);
    },
  };
}

function tell(io: CliIo, notice: ReadNotice): number {
  const warn = (text: string): void => io.stderr(`${io.color.yellow('warning:')} ${text}\n`);
  if (notice.movedAside) {
    warn(`the store ${notice.movedAside.from} could not be opened (${notice.movedAside.reason}); it was moved aside to ${notice.movedAside.to} and derived again from the archive`);
  }
  if (notice.rebuilt) {
    io.stderr(`the store was derived by another version of dbtattic (another store schema or extraction rules); it was rebuilt from the archive first (${countOf(notice.rebuilt.invocations, 'invocation')}), as it is after each upgrade that changes them\n`);
  }
  if (notice.behind) warn(`${notice.behind.why}, so it was read as it is: ${notice.behind.records} archive record(s) are not in it yet`);
  if (!isDamaged(notice.damage)) return ExitCode.ok;
  const { invocations, records } = notice.damage;
  const named = [...invocations, ...records.map((key) => `record ${key}`)];
  warn(`the archive is damaged; left out of this answer: ${named.slice(0, 5).join(', ')}${named.length > 5 ? ` and ${named.length - 5} more` : ''}. See dbtattic info, and repair with dbtattic verify --repair`);
  return ExitCode.partial;
}
