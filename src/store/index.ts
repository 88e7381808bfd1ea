/**
 * The store: a DuckDB database derived from the archive, a cache that `rebuild` can always
 * re-derive. Terms:
 * - sync: bring the store up to the archive (catch-up), rebuilding it when its schema is old.
 * - ingest: re-derive all rows of one invocation, in one transaction (ingest/ingest.ts, the one writer).
 * - node version: one distinct definition of a node, shared by every invocation that has it.
 * Uses the archive and extract; never reads target/. Its rooms, each importing only those above it:
 * - db/        the DuckDB file: opening, locking and waiting, moving aside, plain rows out of results;
 *              duckdb.ts (the client's loader) and schema.ts sit beside this file, not in db/: each
 *              finds files by its own place (vendor/, schema/), at the depth the bundle shares.
 * - ingest/    an invocation's rows from the archive (artifacts, captures, outputs, node versions).
 * - derived/   tables derived across invocations (run and test history, node changes, runtimes).
 * - sync/      catch-up with the archive, rebuild, the journal of a remote store, compaction.
 * - read/      the readers commands and features share (history, inspect and diff, plan and
 *              report facts, read-only queries); they live here, not in the features, because
 *              this file exports them and the store imports no feature.
 * This file is the store's one public face (query, the floor of every reading command, reaches its
 * two modules directly, to load less).
 */
export { syncStore, rebuildStore, type SyncReport, type BusyPolicy, type RebuildReport } from './sync/sync.js';
export { openDatabase, type Database } from './db/database.js';
export { streamReadOnlyQuery, type QuerySink, type QueryOptions, type QueryOutcome } from './read/query.js';
export { branchesWithRuns, readHistory, type History, type HistoryFilter, type HistoryRow, type NodeResult } from './read/history.js';
export { readStoreFigures, type StoreFigures } from './read/figures.js';
export type { CatchUpReport } from './sync/catch-up.js';
export type { IngestProblem } from './ingest/ingest-problem.js';
export type { CatchUpAhead } from './sync/catch-up-ahead.js';
export {
  branchBaseReader,
  catchUpAfterCapture,
  openStoreAhead,
  releaseStoreAhead,
  syncForReading,
  withCurrentStore,
  rebuildProjectStore,
  type ReadNotice,
} from './sync/project-store.js';
export { isDamaged, type StoreDamage } from './db/damage.js';
export type { MovedAside } from './db/store-file.js';
export {
  resolveInvocationRef,
  type InvocationRef,
  readInvocation,
  previousInvocation,
  invocationAbbreviator,
  compareMacros,
  compareNodes,
  compareStatuses,
  compareRuntimes,
} from './read/compare.js';
export { inspectInvocation, diffInvocations, tripletOf, type InspectReport, type Changes, type CompareOptions, type Triplet } from './read/reports.js';
export {
  readPlanFacts,
  type PlanFacts,
  type PlanScope,
  type CurrentNode,
  type BuildAfter,
  type FreshnessCheck,
  type OwnRun,
  type BuildFact,
  type CatalogFact,
  type NodeBuilds,
  type ScopedBuilds,
} from './read/plan-facts.js';
export { readNodeOutput, type NodeOutput, type NodeOutputRef } from './read/node-output.js';
export {
  boundReportMemory,
  readReportRuns,
  readNodeRuntimes,
  streamResults,
  readReportNodes,
  readRunProblems,
  type ReportScope,
  type FactRow,
  type ResultPoint,
} from './read/report-facts.js';
export {
  readRunTimeline,
  readRunEdges,
  readNewestEdges,
  readNodeChanges,
  readTestHistory,
  readSourceChecks,
  readRuntimeRegressions,
  readRunFailures,
} from './read/report-details.js';
export { compactStore, type CompactOutcome } from './sync/compact-store.js';
export { claimCompaction, compactionRunning } from './sync/compaction-claim.js';
