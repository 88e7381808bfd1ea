/**
 * The vocabulary every layer shares, importing nothing of ours but errors.
 * - artifact: one of dbt's JSON files in target/ (manifest, run_results, ...).
 * - invocation: one dbt command, named by dbt's `metadata.invocation_id`.
 * - object id: the lowercase hex SHA-256 of an object's uncompressed bytes.
 */
export * from './artifact.js';
export * from './branch.js';
export * from './hash.js';
export * from './instant.js';
export * from './short-id.js';
export * from './time-id.js';
export * from './parallel.js';
export * from './secret-words.js';
export { isCredentialKey, maskedText, maskSecretShapes } from './secret-shapes.js';
export * from './commands.js';
export * from './time-argument.js';
export * from './duration.js';
export * from './count.js';
export * from './nearest-name.js';
export * from './run-results-summary.js';
export * from './process.js';
