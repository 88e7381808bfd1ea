/** `state --json`: the directory written for dbt's --state, and the invocation it holds. */
export interface StateAnswer {
  path: string;
  invocation_id: string;
  generated_at: string | null;
  command: string | null;
  target: string | null;
  /** The invocation's results by status; null when it has none. */
  results: Record<string, number> | null;
  /** The artifact files written, by name (manifest.json, …). */
  files: string[];
  /** Set when the branch asked for had no success of its own and its base was used. */
  from_base: { branch: string } | null;
}
