import type { AtticConfig } from '../config/resolve.js';
import { streamReadOnlyQuery, type QueryOutcome, type QuerySink } from '../store/read/query.js';
import { readCurrent, type Answered, type ProgressFn } from './read.js';

export interface QueryRequest {
  sql: string;
  /** At most this many rows; null: all. */
  limit: number | null;
  /** At most this many bytes of rows, counted as JSON; null: no bound. */
  maxBytes: number | null;
  /** Stop the query after this long; null: never. */
  timeoutMs: number | null;
}

/** Read-only SQL on the store, its rows streamed to `sink` as they come. */
export function queryStore(config: AtticConfig, request: QueryRequest, sink: QuerySink, onProgress?: ProgressFn): Promise<Answered<QueryOutcome>> {
  const { sql, ...options } = request;
  return readCurrent(config, (db) => streamReadOnlyQuery(db, sql, options, sink), onProgress);
}

export interface QueryRowsAnswer {
  rows: Record<string, unknown>[];
  /** How many rows, and whether (and by what) the answer was cut short. */
  outcome: QueryOutcome;
}

/** The same, its rows held: for an answer that is one document (an MCP tool's), bounded by the request. */
export async function queryRows(config: AtticConfig, request: QueryRequest): Promise<Answered<QueryRowsAnswer>> {
  const rows: Record<string, unknown>[] = [];
  const sink: QuerySink = {
    columns: () => undefined,
    rows: async (batch) => {
      rows.push(...batch);
    },
  };
  const answered = await queryStore(config, request, sink);
  return { ...answered, value: { rows, outcome: answered.value } };
}
