/**
 * The application core: the questions every front end asks (the CLI, the MCP server), each a
 * function from the configuration and a typed request to a typed answer. An answer carries what
 * the read had to say beside it (a damaged archive, a store rebuilt) and what a limit left out;
 * each front end says those its own way. No front end reads another's printed output.
 */
export { readCurrent, type Answered, type ReadNotice } from './read.js';
export { noticeLines, type NoticeLine } from './notice.js';
export { infoOf, type InfoFacts } from './info.js';
export { historyOf, type HistoryAnswer } from './history.js';
export { inspectOf, type InspectAnswer, type InspectRequest, type PlanSummary } from './inspect.js';
export { diffOf, type DiffAnswer } from './diff.js';
export { queryStore, queryRows, type QueryRequest, type QueryRowsAnswer } from './query.js';
export { handOutState, type StateRequest, type HandedOutState } from './state.js';
export { explainOf, findNode } from './plan.js';
// The plan's own entry point is already a typed answer (src/plan/make-plan.ts).
export { makePlan, type PlanOptions, type PlanResult, type NodeVerdict } from '../plan/index.js';
