import { openArchive, putPlanRecord } from '../archive/index.js';
import type { AtticConfig } from '../config/resolve.js';
import { AtticError } from '../errors.js';
import { branchesWithRuns, readPlanFacts, resolveInvocationRef, withCurrentStore, type PlanFacts } from '../store/index.js';
import { newTimeId } from '../vocab/index.js';
import { assemblePlan } from './assemble.js';
import { decidePlan } from './decide.js';
import type { PlannedFrom } from './notices.js';
import type { PlanResult } from './types.js';

export interface PlanOptions {
  /** The invocation whose manifest is planned: an id, a unique prefix or @branch. */
  invocation: string;
  /** Whether that manifest is target/'s (just captured) or one named; default: named. */
  from?: PlannedFrom;
  /** undefined: the invocation's own target (null: dbt's default target). */
  target?: string | null;
  /** undefined: the invocation's own branch; null: builds on any branch count. */
  branch?: string | null;
  deferTo?: string | null;
  select?: string[];
  exclude?: string[];
  /** What build_after measures to, in microseconds; default: when the manifest was written. */
  nowUs?: number | null;
  /** Record the plan in the archive beside its invocation (the default). */
  record?: boolean;
  now?: Date;
}

/**
 * The entry point of `plan`, `explain` (and any other caller): read the facts, decide, select,
 * record. Returns the typed result; printing is the caller's.
 */
export async function makePlan(config: AtticConfig, options: PlanOptions): Promise<PlanResult> {
  const facts = await readFacts(config, options);
  if (options.deferTo && !facts.branch) {
    throw new AtticError('usage', '--defer-to needs the branch being planned: pass --branch, or capture on a branch (git, DBTATTIC_BRANCH).');
  }
  const deferTo = options.deferTo ?? null;
  const verdicts = decidePlan(facts, { deferTo, nowUs: options.nowUs });
  const now = options.now ?? new Date();
  const plan = assemblePlan(
    facts,
    verdicts,
    { deferTo, select: options.select ?? [], exclude: options.exclude ?? [], from: options.from ?? 'named' },
    newTimeId(now),
    now,
  );
  if (options.record ?? true) {
    const backend = await openArchive(config.archiveLocation, { create: false, remote: config.remote });
    await putPlanRecord(backend, plan.invocation_id, plan.plan_id, plan);
  }
  return plan;
}

async function readFacts(config: AtticConfig, options: PlanOptions): Promise<PlanFacts> {
  return withCurrentStore(config, async (db) => {
    const invocationId = await resolveInvocationRef(db.connection, { id: options.invocation });
    if (options.branch || options.deferTo) checkBranchesNamed(await branchesWithRuns(db.connection), [options.branch, options.deferTo]);
    return readPlanFacts(db.connection, { invocationId, target: options.target, branch: options.branch, deferTo: options.deferTo ?? null });
  });
}

/**
 * A branch named with nothing filed on it is a typo far more often than a new line of history:
 * planned as given, every node would build and no build would be deferred to, without a word.
 */
function checkBranchesNamed(known: readonly string[], named: readonly (string | null | undefined)[]): void {
  const unknown = named.find((b): b is string => typeof b === 'string' && !known.includes(b));
  if (unknown !== undefined) {
    throw new AtticError(
      'usage',
      `No run is filed on branch '${unknown}'${known.length ? ` (branches with runs: ${known.join(', ')})` : ''}. Check the name with dbtattic branch list.`,
    );
  }
}
