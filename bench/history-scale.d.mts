/** Types of bench/history-scale.mjs, for its smoke test (test/e2e/history-scale-smoke.test.ts). */
export interface ReadingRow {
  question: string;
  ms: number;
  budget_ms: number;
  count?: number | null;
  status?: number;
  peer_ms?: number;
  peer_count?: number;
  pass: boolean;
}

export interface HistoryScaleResult {
  name: 'history-scale';
  data: string;
  nodes: number;
  runs: number;
  results_per_run: number;
  reading: ReadingRow[];
  ingest: { question: string; ms: number; peer_ms?: number; pass: boolean }[];
  sizes: { store_bytes: number; rebuilt_store_bytes: number; archive_bytes: number; tar_czf_bytes: number; artifact_bytes: number };
  rebuild_s: number;
  /** Why `rebuild` failed (its exit status and output), or null. */
  rebuild_error: string | null;
  checks: Record<string, boolean>;
  pass: boolean;
  /** The background compactions a capture started, by the run after which it ran. */
  background_compactions: { run: number; ms: number }[];
}

export declare function benchHistoryScale(options?: {
  nodes?: number;
  runs?: number;
  dir?: string;
  keepManifests?: boolean;
  repeat?: number;
}): Promise<HistoryScaleResult>;
export declare function formatTable(result: HistoryScaleResult): string;
export declare function viewNames(): string[];
