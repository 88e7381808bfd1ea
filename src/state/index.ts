/**
 * State: answers "which archived invocation should dbt's --state see?" and writes it out.
 * - archived invocation: the newest record of each artifact type filed under one invocation id.
 * - success: run results with at least one result and none in error, fail, runtime error or
 *   partial success, from a deploying command (build or run unless told otherwise).
 * Reads the archive directly, not the DuckDB store, so it works while the store is busy.
 */
export { chooseState, isSuccess, DEPLOY_COMMANDS, type StateQuery, type ChosenState } from './last-success.js';
export { listArchivedInvocations, type ArchivedInvocation } from './invocations.js';
export { checkStateDir, STATE_ARTIFACTS, STATE_DIR_MARKER, writeStateDir } from './materialize.js';
export { readRunSummary, FAILED_STATUSES, type RunSummary } from './judged-run.js';
export { createBranchFrom } from './branch.js';
export { refuseUnknownBranch } from './known-branch.js';
export { synthesizePerNodeState, writePerNodeState, type PerNodeState } from './synthesize.js';
