import { listPlanRecords, openArchive } from '../archive/index.js';
import type { AtticConfig } from '../config/resolve.js';
import { AtticError } from '../errors.js';
import { branchBaseReader, inspectInvocation, invocationAbbreviator, resolveInvocationRef, type InspectReport } from '../store/index.js';
import { readCurrent, type Answered, type ProgressFn } from './read.js';

export interface InspectRequest {
  /** An id, a unique prefix or @branch; or, instead, `at`: the latest invocation at or before a time. */
  ref?: string;
  at?: string;
  nearest: boolean;
}

/** What inspect lists of each plan recorded for the invocation; the record itself has every verdict. */
export interface PlanSummary {
  plan_id: string;
  made_at: string | null;
  reuse: number;
  build: number;
  target: string | null;
  branch: string | null;
  defer_to: string | null;
}

export interface InspectAnswer {
  /** `inspect --json`. */
  report: InspectReport & { plans: PlanSummary[] };
  abbreviate: (id: string) => string;
}

/** Which code, data and run produced an invocation, what changed since the one before, and its plans. */
export async function inspectOf(config: AtticConfig, request: InspectRequest, onProgress?: ProgressFn): Promise<Answered<InspectAnswer>> {
  if (!request.ref && !request.at) throw new AtticError('usage', 'Name an invocation (id, unique prefix or @branch) or give --at TIME.');
  if (request.ref && request.at) throw new AtticError('usage', 'Give an invocation or --at TIME, not both (--at chooses the invocation).');
  const read = await readCurrent(
    config,
    async (db) => {
      const id = await resolveInvocationRef(db.connection, { id: request.ref, at: request.at, baseOf: branchBaseReader(config) });
      return { report: await inspectInvocation(db.connection, id, { nearest: request.nearest }), abbreviate: await invocationAbbreviator(db.connection) };
    },
    onProgress,
  );
  const backend = await openArchive(config.archiveLocation, { create: false, remote: config.remote });
  const plans = (await listPlanRecords(backend, String(read.value.report.invocation.invocation_id))).map(planSummary);
  return { ...read, value: { report: { ...read.value.report, plans }, abbreviate: read.value.abbreviate } };
}

function planSummary(record: unknown): PlanSummary {
  const plan = (record ?? {}) as Record<string, unknown>;
  const counts = (plan.counts ?? {}) as Record<string, unknown>;
  const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  return {
    plan_id: String(plan.plan_id),
    made_at: str(plan.made_at),
    reuse: Number(counts.reuse ?? 0),
    build: Number(counts.build ?? 0),
    target: str(plan.target),
    branch: str(plan.branch),
    defer_to: str(plan.defer_to),
  };
}
