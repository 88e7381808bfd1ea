import type { Backend } from './backend.js';
import { keySegment } from './layout.js';

/**
 * Plans, recorded beside the invocation they were made for (the dbt parse or compile whose
 * manifest was planned): records/plans/<invocation_id>/<plan_id>.json. Like every record,
 * written once (temp file, then an atomic link into place) and never changed; plan ids are
 * time-ordered, so listing sorts them by when they were made.
 */
export const PLAN_RECORDS_PREFIX = 'records/plans/';

export function planRecordKey(invocationId: string, planId: string): string {
  return `${PLAN_RECORDS_PREFIX}${keySegment(invocationId)}/${keySegment(planId)}.json`;
}

export async function putPlanRecord(backend: Backend, invocationId: string, planId: string, plan: unknown): Promise<boolean> {
  return backend.putIfAbsent(planRecordKey(invocationId, planId), Buffer.from(`${JSON.stringify(plan, null, 2)}\n`));
}

/** The plans recorded for an invocation, oldest first, as written. */
export async function listPlanRecords(backend: Backend, invocationId: string): Promise<unknown[]> {
  const prefix = `${PLAN_RECORDS_PREFIX}${keySegment(invocationId)}/`;
  const keys = (await backend.list(prefix)).map((k) => k.key).filter((k) => k.endsWith('.json')).sort();
  const plans: unknown[] = [];
  for (const key of keys) {
    const bytes = await backend.get(key);
    // A damaged record is left out, as readers leave out any damaged record; verify names it.
    if (bytes && isWhole(key, bytes)) plans.push(JSON.parse(bytes.toString('utf8')));
  }
  return plans;
}

function isWhole(key: string, bytes: Buffer): boolean {
  try {
    parsePlanRecord(key, bytes);
    return true;
  } catch {
    return false;
  }
}

/** A plan record's key must be the one its content implies: invocation_id and plan_id. */
export function parsePlanRecord(key: string, bytes: Buffer): { invocation_id: string; plan_id: string } {
  const plan = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  if (typeof plan.invocation_id !== 'string' || typeof plan.plan_id !== 'string') throw new Error('it is not a plan record (no invocation_id or plan_id)');
  if (planRecordKey(plan.invocation_id, plan.plan_id) !== key) throw new Error('its content does not match its key');
  return { invocation_id: plan.invocation_id, plan_id: plan.plan_id };
}
