import type { Backend } from './backend.js';
import { putForgetRecord, type ForgetRecord } from './forgotten.js';
import { putJournalEntry } from './journal.js';
import { CAPTURE_RECORDS_PREFIX, captureRecordKey, INVOCATION_RECORDS_PREFIX, invocationOfRecordKey, OUTPUT_RECORDS_PREFIX } from './layout.js';
import { PLAN_RECORDS_PREFIX } from './plans.js';
import { listCaptureRecords, type CaptureRecord } from './records.js';
import { forEachLimited } from '../vocab/parallel.js';
import { newTimeId } from '../vocab/time-id.js';

/**
 * Removes the records of forgotten invocations; their objects stay until `prune`. The forget
 * record goes first (forgotten.ts), then the records in the order that keeps every step
 * acceptable to `verify`: plans (which need their invocation's artifact records), outputs,
 * capture records that name no remaining invocation, and last the artifact records. `forget`
 * decides which invocations (retention/); push and pull replay a forget the other side made.
 */
export interface ForgetOutcome {
  forgetId: string;
  records: number;
  bytes: number;
}

export interface RecordsToRemove {
  keys: string[];
  bytes: number;
  captures: string[];
}

/** The record keys forgetting `ids` removes, in removal order (pure over the listings). */
export async function recordsOf(backend: Backend, ids: ReadonlySet<string>): Promise<RecordsToRemove> {
  const ofForgotten = (prefix: string) => async (): Promise<{ key: string; size: number }[]> =>
    (await backend.list(prefix)).filter((k) => ids.has(invocationOfRecordKey(prefix, k.key)));
  const [plans, outputs, artifacts] = await Promise.all([
    ofForgotten(PLAN_RECORDS_PREFIX)(),
    ofForgotten(OUTPUT_RECORDS_PREFIX)(),
    ofForgotten(INVOCATION_RECORDS_PREFIX)(),
  ]);
  const captures = (await listCaptureRecords(backend)).filter((c) => namesOnly(c, ids));
  const sizes = new Map((await backend.list(CAPTURE_RECORDS_PREFIX)).map((k) => [k.key, k.size]));
  const captureKeys = captures.map((c) => ({ key: captureRecordKey(c.capture_id), size: sizes.get(captureRecordKey(c.capture_id)) ?? 0 }));
  const all = [...plans, ...outputs, ...captureKeys, ...artifacts];
  return { keys: all.map((k) => k.key), bytes: all.reduce((sum, k) => sum + k.size, 0), captures: captures.map((c) => c.capture_id) };
}

/** A capture record goes with the invocations it filed, once it names no invocation that stays. */
export function namesOnly(capture: CaptureRecord, ids: ReadonlySet<string>): boolean {
  const named = namedInvocations(capture);
  return named.length > 0 && named.every((id) => ids.has(id));
}

/** The invocations whose artifacts or outputs a capture record names. */
export function namedInvocations(capture: CaptureRecord): string[] {
  return [...new Set([...capture.artifacts, ...(capture.outputs ?? [])].map((a) => a.invocation_id).filter((id): id is string => id !== null))];
}

export async function applyForget(backend: Backend, ids: readonly string[], policy: string, now: Date): Promise<ForgetOutcome> {
  const forgetId = newTimeId(now);
  if (ids.length === 0) return { forgetId, records: 0, bytes: 0 };
  const removing = await recordsOf(backend, new Set(ids));
  await putForgetRecord(backend, {
    kind: 'forget',
    format: 1,
    forget_id: forgetId,
    forgotten_at: now.toISOString(),
    policy,
    invocations: [...ids].sort(),
    captures: removing.captures,
  });
  await putJournalEntry(backend, { journal_id: forgetId, captures: [], artifact_records: [], forget_id: forgetId });
  await removeRecords(backend, removing.keys);
  return { forgetId, records: removing.keys.length, bytes: removing.bytes };
}

/**
 * A forget made in another archive, made here too (push, pull): its record as it is, a journal
 * entry of now (a store reads the journal after what it has seen, so an entry under the forget's
 * older id would go unread), then this archive's records of its invocations. Returns how many.
 */
export async function replayForget(backend: Backend, record: ForgetRecord, now: Date): Promise<number> {
  const removing = await recordsOf(backend, new Set(record.invocations));
  await putForgetRecord(backend, record);
  await putJournalEntry(backend, { journal_id: newTimeId(now), captures: [], artifact_records: [], forget_id: record.forget_id });
  await removeRecords(backend, removing.keys);
  return removing.keys.length;
}

/** In order, a stage at a time: a forget killed midway has removed only what later stages need not. */
async function removeRecords(backend: Backend, keys: readonly string[]): Promise<void> {
  for (const stage of stagesOf(keys)) await forEachLimited(stage, 16, (key) => backend.delete(key));
}

function stagesOf(keys: readonly string[]): string[][] {
  const order = [PLAN_RECORDS_PREFIX, OUTPUT_RECORDS_PREFIX, CAPTURE_RECORDS_PREFIX, INVOCATION_RECORDS_PREFIX];
  return order.map((prefix) => keys.filter((k) => k.startsWith(prefix)));
}
