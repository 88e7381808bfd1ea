/**
 * extract: artifact bytes of any dbt version → rows for the store. Pure: no I/O, no DuckDB;
 * imports only the vocabulary, errors and the JSON scanner.
 *
 * Terms
 * - artifact: one of dbt's JSON files (manifest, run_results, sources, catalog,
 *   semantic_manifest). Its `metadata.dbt_schema_version` names its schema version ("v12");
 *   artifacts from before dbt 0.19, and every semantic manifest, are unversioned.
 * - header: the artifact's type, schema version and metadata, read without parsing the rest.
 * - invocation facts: what an artifact says about the dbt invocation that wrote it; the facts
 *   of an invocation's artifacts merge into its `invocation` row.
 * - node: any manifest resource but a macro. A node version is one distinct definition of a
 *   node, named by a content hash of the definition without invocation-specific fields
 *   (node-version.ts); node_invocation says which versions an invocation's manifest held.
 * - fill-in: a column of a version row that is not part of its hash (compiled code, the
 *   rendered relation name), set from the first manifest that has it.
 * - row: a plain object whose keys are a table's columns (schema/001-tables.sql), in order.
 *
 * Each `extract*` function takes the artifact's bytes and ReadOptions, refuses an unknown schema
 * version with AtticError('unknown-schema-version'), and returns its header, its invocation
 * facts and its rows. Manifests and catalogs give their rows through a generator, parsed one
 * node at a time, so memory stays bounded for artifacts too large for one JSON.parse.
 */
export { extractCatalog, type CatalogEntry, type CatalogExtract } from './catalog.js';
export { commandName, typedCommandName } from './command-name.js';
export {
  checkSchemaVersion,
  KNOWN_SCHEMA_VERSIONS,
  parseSchemaUrl,
  readHeader,
  type ArtifactHeader,
  type ReadOptions,
} from './detect.js';
export { mergeInvocationFacts, type ArtifactInvocationFacts } from './invocation.js';
export { extractManifest, type ManifestEntry, type ManifestExtract, type ManifestReadOptions } from './manifest.js';
export type { PriorManifest, PriorNode } from './fingerprint-reuse.js';
export type { MacroEntry, NodeEntry } from './manifest-nodes.js';
export { EXCLUDED_MACRO_FIELDS, EXCLUDED_NODE_FIELDS, macroVersionId, nodeVersionId } from './node-version.js';
export type * from './rows.js';
export { extractRunResults, type RunResultsExtract } from './run-results.js';
export { summarizeRunResults } from './summarize-run-results.js';
export { extractSemanticManifest, type SemanticManifestExtract } from './semantic-manifest.js';
export { extractFreshness, extractSources, type SourcesExtract } from './sources.js';
export { KNOWN_STATUSES, normaliseStatus, type KnownStatus } from './status.js';
export { readArtifactGitEnv, applyArtifactGitEnv, type ArtifactGitEnv, type GitFields } from './artifact-git-env.js';
export { fingerprintNode, fingerprintProject, describeFingerprint, FINGERPRINT_VERSION } from './node-fingerprint.js';
export { normalizeSql } from './sql-tokens.js';
export { dialectFor } from './sql-dialect.js';

export { ROWS_VERSION } from './rule-versions.js';
