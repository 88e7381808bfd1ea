/**
 * The store: a DuckDB database derived from the archive, a cache that `rebuild` can always
 * re-derive. Terms:
 * - sync: bring the store up to the archive (catch-up), rebuilding it when its schema is old.
 * - ingest: re-derive all rows of one invocation, in one transaction (ingest.ts, the one writer).
 * - node version: one distinct definition of a node, shared by every invocation that has it.
 * Uses the archive and extract; never reads target/.
 */
export { syncStore, rebuildStore, type SyncReport, type BusyPolicy, type RebuildReport } from './sync.js';
export { openDatabase, type Database } from './database.js';
export { streamReadOnlyQuery, type QuerySink, type QueryOptions, type QueryOutcome } from './query.js';
export { branchesWithRuns, readHistory, type History, type HistoryFilter, type HistoryRow, type NodeResult } from './history.js';
export { readStoreFigures, type StoreFigures } from './figures.js';
export type { CatchUpReport } from './catch-up.js';
export type { IngestProblem } from './ingest.js';
export type { CatchUpAhead } from './catch-up-ahead.js';
export { branchBaseReader, catchUpAfterCapture, openStoreAhead, releaseStoreAhead, syncForReading, withCurrentStore, rebuildProjectStore, type ReadNotice } from './project-store.js';
export { isDamaged, type StoreDamage } from './damage.js';
export type { MovedAside } from './store-file.js';
export { resolveInvocationRef, type InvocationRef, readInvocation, previousInvocation, invocationAbbreviator, compareMacros, compareNodes, compareStatuses, compareRuntimes } from './compare.js';
export { inspectInvocation, diffInvocations, tripletOf, type InspectReport, type Changes, type CompareOptions, type Triplet } from './reports.js';
export { readPlanFacts, type PlanFacts, type PlanScope, type CurrentNode, type BuildAfter, type FreshnessCheck, type OwnRun, type BuildFact, type CatalogFact, type NodeBuilds, type ScopedBuilds } from './plan-facts.js';
export { readNodeOutput, type NodeOutput, type NodeOutputRef } from './node-output.js';
export { boundReportMemory, readReportRuns, readNodeRuntimes, streamResults, readReportNodes, readRunProblems, type ReportScope, type FactRow, type ResultPoint } from './report-facts.js';
export { readRunTimeline, readRunEdges, readNewestEdges, readNodeChanges, readTestHistory, readSourceChecks, readRuntimeRegressions, readRunFailures } from './report-details.js';
export { compactStore, type CompactOutcome } from './compact-store.js';
export { claimCompaction, compactionRunning } from './compaction-claim.js';
