/**
 * The archive: dbtattic's source of truth. Terms:
 * - backend: where bytes live (a directory, S3-compatible object storage); keys are '/' paths.
 * - chunk: a compressed (brotli; gzip in format 1), content-defined piece of an artifact, named by its SHA-256.
 * - file: the index of one whole artifact's chunks, named by the artifact's SHA-256.
 * - record: small immutable JSON giving objects meaning (artifact records, capture records).
 * - ref: the only mutable values (branch heads), changed by compare-and-swap.
 * The archive knows nothing about DuckDB or target/.
 */
export type { Backend, StoredKey } from './backend.js';
export { backendFor, openArchive, openArchiveForCheck, openBackend, redactUrl, ARCHIVE_FORMAT, type RemoteOptions } from './open.js';
export { archiveFormatOn, type ArchiveFormatVersion } from './archive-format.js';
export type { BackendCapabilities } from './backend.js';
export { putBlob, readBlob, recallBlob, hasBlob, repairBlob, restoreChunks, type PutResult } from './objects.js';
export { BlobsAhead } from './blobs-ahead.js';
export { forgetWrittenBlobs } from './written-blobs.js';
export * from './records.js';
export { artifactRecordKey, captureRecordKey, invocationIdProblem, invocationOfRecordKey, keySegment } from './layout.js';
export { listJournalIds, putJournalEntry, readJournalEntries, type JournalEntry } from './journal.js';
export { readChangeStamp } from './change-stamp.js';
export { readRef, updateRef, listRefs } from './refs.js';
export { verifyArchive, type VerifyReport, type Problem, type Summarize } from './verify.js';
export { summarizeArchive, type ArchiveSummary } from './summary.js';
export {
  advanceBranch,
  checkBranchName,
  createBranch,
  deleteBranch,
  headInvocation,
  listBranches,
  readBranch,
  rewriteBranchRef,
  unreadableBranchRefs,
  type Branch,
} from './branches.js';
export { transferArchive, divergedBranches, type TransferReport } from './transfer.js';
export { PLAN_RECORDS_PREFIX, planRecordKey, putPlanRecord, listPlanRecords } from './plans.js';
export {
  OUTPUT_KINDS,
  authoritativeOutput,
  hasOutputRecord,
  listOutputRecordKeys,
  parseOutputRecord,
  putOutputRecord,
  readOutputRecords,
  type OutputKind,
  type OutputRecord,
} from './outputs.js';
export { MAX_TREE_DEPTH, planSqlTree, putSqlTree, readSqlTree, type SqlFile, type SqlFiles, type SqlTreeBase, type SqlTreeDocument } from './sql-tree.js';
export { outputRecordKey } from './layout.js';
export { repairArchive, type RepairReport } from './repair.js';
export { invocationsPlannedSince } from './plans.js';
export { applyForget, recordsOf, replayForget, type ForgetOutcome, type RecordsToRemove } from './forget-records.js';
export {
  FORGOTTEN_PREFIX,
  forgetRecordKey,
  forgottenCheck,
  forgottenInvocations,
  listForgetRecords,
  putForgetRecord,
  readForgetRecords,
  type ForgetRecord,
} from './forgotten.js';
export { HANDOUTS_PREFIX, listHandoutsSince, putHandoutRecord, type HandoutRecord } from './handouts.js';
export {
  beginForget,
  beginSweep,
  GuardedBackend,
  LOCKS_PREFIX,
  removeDeadHolders,
  takeBaseLease,
  takeWriterLease,
  withWriterLease,
  type WaitNote,
} from './prune-guard.js';
export { readFileIndex, type FileIndex } from './objects.js';
export {
  CHUNKS_PREFIX,
  FILES_PREFIX,
  INVOCATION_RECORDS_PREFIX,
  CAPTURE_RECORDS_PREFIX,
  OUTPUT_RECORDS_PREFIX,
  chunkKey,
  fileKey,
  idOfObjectKey,
} from './layout.js';
export { parseSqlTree } from './sql-tree.js';
