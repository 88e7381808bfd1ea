/** One node's result in an invocation: the node `history --node` follows, or a failure `--failed` lists. */
export interface NodeResult {
  unique_id: string;
  status: string | null;
  execution_time: number | null;
  message: string | null;
}

/** One invocation as `history --json` lists it, newest first. */
export interface HistoryRow {
  invocation_id: string;
  /**
   * When dbt started it (invocation_started_at, else its end less its elapsed time), else when
   * dbt wrote its artifact: the time the report shows for a run too.
   */
  at: string | null;
  command: string | null;
  target: string | null;
  status_counts: Record<string, number> | null;
  /** ok: results, none failed; failed: some error or fail; none: no results (a parse, a compile without nodes). */
  outcome: 'ok' | 'failed' | 'none';
  elapsed_s: number | null;
  git_sha: string | null;
  git_branch: string | null;
  branch: string | null;
  dbt_version: string | null;
  run_exit_code: number | null;
  /** With a node filter: that node's results in this invocation. */
  node_results?: NodeResult[];
  /** When asked for: the invocation's failed results, with dbt's messages. */
  failures?: NodeResult[];
}

/** What a history read found: the rows, and what the limit and filters left out. */
export interface History {
  rows: HistoryRow[];
  /** How many invocations matched before the limit cut them. */
  matched: number;
  /** How many invocations the store holds, whatever the filters. */
  stored: number;
}
