import type { History } from '../answers/index.js';
import type { AtticConfig } from '../config/resolve.js';
import { typedCommandName } from '../extract/index.js';
import { invocationAbbreviator, readHistory, type HistoryFilter } from '../store/index.js';
import { refuseMistypedBranch } from './named-branch.js';
import { readCurrent, type Answered, type ProgressFn } from './read.js';

export interface HistoryAnswer extends History {
  /** With a branch asked for and nothing matched: how many runs that branch has at all. */
  branchRuns: number | null;
  /** Invocation ids cut to their shortest unique prefix in this store. */
  abbreviate: (id: string) => string;
}

/** Recent invocations, newest first; with `failed`, each with its failed nodes and dbt's messages. */
export async function historyOf(config: AtticConfig, asked: HistoryFilter, failed: boolean, onProgress?: ProgressFn): Promise<Answered<HistoryAnswer>> {
  // dbt's own words for a command (`dbt docs generate` is filed as generate, say).
  const filter = { ...asked, command: asked.command === undefined ? undefined : typedCommandName(asked.command) };
  const answered = await readCurrent(
    config,
    async (db) => {
      const read = await readHistory(db.connection, filter, failed);
      // Whether the branch itself is empty, not just of what the other filters want.
      const branchRuns = read.matched === 0 && filter.branch ? (await readHistory(db.connection, { limit: 1, branch: filter.branch }, false)).matched : null;
      return { ...read, branchRuns, abbreviate: await invocationAbbreviator(db.connection) };
    },
    onProgress,
  );
  // Only once nothing was found: a branch with runs costs no look at the archive.
  if (answered.value.rows.length === 0) await refuseMistypedBranch(config, filter.branch);
  return answered;
}
