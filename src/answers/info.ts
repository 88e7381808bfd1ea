/** A setting and where it came from (a flag, an environment variable, dbtattic.yml, a default). */
export interface Sourced<T> {
  value: T;
  source: string;
}

/** `info --json`: the resolved configuration and what the archive and the store hold. */
export interface InfoAnswer {
  version: string;
  config: ConfigView;
  remote: RemoteView | null;
  /** null when there is no archive yet. */
  archive: ArchiveSummary | null;
  store: StoreView | null;
  /** What the configured keep policy would free now; null without one. */
  retention: RetentionView | null;
}

export interface ConfigView {
  project_dir: Sourced<string> | null;
  project_name: string | null;
  store: Sourced<string>;
  target_dir: Sourced<string> | null;
  artifacts: Sourced<string[]>;
  branch: Sourced<string> | null;
  /** The catalog provider as configured (never a credential: config holds only variable names), or why it is invalid. */
  catalog: Sourced<unknown> | { error: string; source: string } | null;
  /** Where the archive is: a directory, or the s3:// URI of a remote store. */
  archive: string;
  database: string;
}

/** The remote store, what its server was probed to support, and the local cache. */
export interface RemoteView {
  uri: string;
  capabilities: { createOnly: boolean; compareAndSwap: boolean };
  branch_heads: 'compare-and-swap' | 'head entries (fallback)';
  cache: Sourced<string>;
}

export interface ArchiveSummary {
  location: string;
  invocations: number;
  artifactRecords: number;
  captureRecords: number;
  files: number;
  chunks: number;
  /** Sum of the sizes of the distinct artifacts archived, as dbt wrote them. */
  logicalBytes: number;
  /** What the archive occupies: compressed chunks, file indexes and records. */
  storedBytes: number;
}

/** The store's figures after catching up, or, when another process holds it, why none were read. */
export type StoreView = StoreFigures | { busy: string };

export interface StoreFigures {
  schemaVersion: string | null;
  rows: Record<string, number>;
  /** Distinct node definitions against node rows across invocations: the de-duplication. */
  nodeVersions: number;
  nodeRows: number;
  problems: number;
  /** Invocations (and records naming none) that damaged archive bytes left incomplete. */
  damaged: string[];
}

export interface RetentionView {
  policy: string;
  source: string;
  would_forget: number;
  would_keep: number;
  would_free_bytes: number;
}
