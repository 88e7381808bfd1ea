import type { AtticConfig } from '../config/resolve.js';
import { branchBaseReader, diffInvocations, invocationAbbreviator, resolveInvocationRef, type Changes } from '../store/index.js';
import { readCurrent, type Answered, type ProgressFn } from './read.js';

export interface DiffAnswer {
  changes: Changes;
  abbreviate: (id: string) => string;
}

/** What changed from one invocation to another (ids, unique prefixes or @branch). */
export function diffOf(config: AtticConfig, request: { from: string; to: string; nearest: boolean }, onProgress?: ProgressFn): Promise<Answered<DiffAnswer>> {
  return readCurrent(
    config,
    async (db) => {
      const baseOf = branchBaseReader(config);
      const from = await resolveInvocationRef(db.connection, { id: request.from, baseOf });
      const to = await resolveInvocationRef(db.connection, { id: request.to, baseOf });
      return { changes: await diffInvocations(db.connection, from, to, { nearest: request.nearest }), abbreviate: await invocationAbbreviator(db.connection) };
    },
    onProgress,
  );
}
