import type { Backend } from './backend.js';
import { timeOfTimeId } from '../vocab/index.js';
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
  const keys = (await backend.list(prefix))
    .map((k) => k.key)
    .filter((k) => k.endsWith('.json'))
    .sort();
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

/**
 * What plans made at or after `sinceMs` relied on: the invocation each planned, and each
 * node's last build it reused or compared with. Plan ids are time-ordered, so only plans in the
 * window are read.
 */
export async function invocationsPlannedSince(backend: Backend, sinceMs: number): Promise<Set<string>> {
  const keys = (await backend.list(PLAN_RECORDS_PREFIX)).map((k) => k.key).filter((k) => k.endsWith('.json') && planTimeOfKey(k) >= sinceMs);
  const ids = new Set<string>();
  for (const key of keys) {
    const plan = JSON.parse((await backend.get(key))?.toString('utf8') ?? '{}') as {
      invocation_id?: unknown;
      nodes?: { last_build?: { invocation_id?: unknown } | null }[];
    };
    if (typeof plan.invocation_id === 'string') ids.add(plan.invocation_id);
    for (const node of plan.nodes ?? []) if (typeof node.last_build?.invocation_id === 'string') ids.add(node.last_build.invocation_id);
  }
  return ids;
}

function planTimeOfKey(key: string): number {
  const planId = decodeURIComponent(key.slice(key.lastIndexOf('/') + 1, -'.json'.length));
  return timeOfTimeId(planId)?.getTime() ?? 0;
}
