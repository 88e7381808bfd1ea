/**
 * The rows extract gives, one interface per table of schema/001-tables.sql. Keys are the
 * table's column names in the table's order, so a row appends in key order; JSON columns hold
 * serialised JSON. A test checks these shapes against the DDL.
 */
export type Cell = string | number | boolean | null;

/** The invocation columns that come from artifacts; the ingester adds the capture facts. */
export interface InvocationFacts {
  invocation_id: string;
  project_name: string | null;
  project_id: string | null;
  dbt_version: string | null;
  adapter_type: string | null;
  command: string | null;
  selection: string | null;
  exclusion: string | null;
  selector: string | null;
  resource_types: string | null;
  full_refresh: boolean | null;
  target: string | null;
  vars: string | null;
  invocation_command: string | null;
  args: string | null;
  env: string | null;
  generated_at: string | null;
  started_at: string | null;
  completed_at: string | null;
  elapsed_s: number | null;
  result_count: number | null;
  status_counts: string | null;
  /** One hash over every node fingerprint of the manifest: the project's code, without git. */
  code_fingerprint: string | null;
}

export interface NodeVersionRow {
  node_version_id: string;
  unique_id: string;
  resource_type: string;
  disabled: boolean;
  name: string | null;
  package_name: string | null;
  path: string | null;
  patch_path: string | null;
  language: string | null;
  raw_code: string | null;
  materialization: string | null;
  database_name: string | null;
  schema_name: string | null;
  identifier: string | null;
  checksum: string | null;
  config: string | null;
  unrendered_config: string | null;
  description: string | null;
  tags: string | null;
  meta: string | null;
  contract: string | null;
  access: string | null;
  version: string | null;
  group_name: string | null;
  fqn: string | null;
  declared_columns: string | null;
  attributes: string | null;
  /** config, unrendered_config and declared columns as compared between invocations (compared-config.ts). */
  config_compared: string | null;
  unrendered_config_compared: string | null;
  columns_compared: string | null;
}

export interface NodeInvocationRow {
  invocation_id: string;
  unique_id: string;
  node_version_id: string;
  /** Semantic fingerprint (node-fingerprint.ts): per invocation, since it covers the macros called. */
  fingerprint: string | null;
  /** As this invocation rendered it (its target's database and schema, its quoting); null when it did not compile. */
  relation_name: string | null;
  /** The compiled SQL this invocation's manifest holds (compiled_code table); null after `dbt parse`. */
  compiled_code_id: string | null;
}

/** Compiled SQL from a manifest, stored once however many invocations and nodes share it. */
export interface CompiledCodeRow {
  compiled_code_id: string;
  code: string;
}

/**
 * One node entry of a manifest as dbt wrote it, named by the digest of its bytes (entry-digest.ts),
 * with the per-invocation rows those bytes alone decide. A later manifest holding the same bytes
 * takes them from here instead of parsing and hashing the entry again.
 */
export interface NodeEntryRow {
  entry_digest: string;
  unique_id: string;
  node_version_id: string;
  relation_name: string | null;
  compiled_code_id: string | null;
  /** JSON lists of depends_on.nodes and depends_on.macros, each id once, in the entry's order. */
  depends_on_nodes: string;
  depends_on_macros: string;
}

export type DependencyKind = 'node' | 'macro';

export interface NodeDependsOnRow {
  invocation_id: string;
  unique_id: string;
  depends_on_id: string;
  kind: DependencyKind;
}

export interface MacroVersionRow {
  macro_version_id: string;
  unique_id: string;
  name: string | null;
  package_name: string | null;
  path: string | null;
  patch_path: string | null;
  macro_sql: string | null;
  description: string | null;
  meta: string | null;
  arguments: string | null;
  depends_on_macros: string | null;
  supported_languages: string | null;
}

export interface MacroInvocationRow {
  invocation_id: string;
  unique_id: string;
  macro_version_id: string;
}

export interface RunResultRow {
  invocation_id: string;
  unique_id: string;
  status: string | null;
  message: string | null;
  failures: number | null;
  execution_time: number | null;
  thread_id: string | null;
  compile_started_at: string | null;
  compile_completed_at: string | null;
  execute_started_at: string | null;
  execute_completed_at: string | null;
  rows_affected: number | null;
  adapter_response: string | null;
  batch_results: string | null;
}

export interface SourceFreshnessRow {
  invocation_id: string;
  unique_id: string;
  status: string | null;
  message: string | null;
  max_loaded_at: string | null;
  snapshotted_at: string | null;
  age_s: number | null;
  warn_after_count: number | null;
  warn_after_period: string | null;
  error_after_count: number | null;
  error_after_period: string | null;
  criteria: string | null;
  execution_time: number | null;
  thread_id: string | null;
  adapter_response: string | null;
}

export interface CatalogTableRow {
  invocation_id: string;
  unique_id: string;
  database_name: string | null;
  schema_name: string | null;
  table_name: string | null;
  table_type: string | null;
  owner: string | null;
  comment: string | null;
  row_count: number | null;
  byte_count: number | null;
  stats: string | null;
}

export interface CatalogColumnRow {
  invocation_id: string;
  unique_id: string;
  column_name: string;
  column_type: string | null;
  column_index: number | null;
  comment: string | null;
}

export type SemanticKind = 'semantic_model' | 'metric' | 'saved_query' | 'project_configuration';

export interface SemanticDefinitionRow {
  invocation_id: string;
  kind: SemanticKind;
  name: string;
  definition: string;
}
