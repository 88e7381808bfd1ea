/**
 * Capture: reads dbt's target/ (and, for `run`, runs dbt between two captures) and files each
 * artifact under its own invocation in the archive. Terms:
 * - inspect: read, hash and read the header of each artifact file (target.ts).
 * - plan: decide per artifact: store, unchanged, absent or error (plan.ts, pure).
 * - apply: write objects and records in a crash-safe order (apply.ts).
 * Uses the archive; knows nothing of DuckDB.
 */
export { captureTarget, type CaptureOptions, type CaptureOutcome } from './capture.js';
export type { CapturePlan, PlannedArtifact } from './capture-plan.js';
export { filedManifestInvocation } from './capture-plan.js';
export { intactCopies } from './intact-copies.js';
