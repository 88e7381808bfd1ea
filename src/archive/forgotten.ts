import type { Backend } from './backend.js';
import { keySegment } from './layout.js';
import { forEachLimited } from '../vocab/parallel.js';
import { timeOfTimeId } from '../vocab/time-id.js';

/**
 * A forget record, `records/forgotten/<forget_id>.json`, is written by `forget` before it
 * removes any record (as the journal precedes a capture): it names the invocations whose
 * records go and the capture records that go with them. Stores learn from it which rows to drop
 * (a remote store's cache never lists the bucket), and verify from it that a capture record
 * naming a forgotten invocation's artifact is history, not damage.
 */
export const FORGOTTEN_PREFIX = 'records/forgotten/';

export interface ForgetRecord {
  kind: 'forget';
  format: 1;
  forget_id: string;
  forgotten_at: string;
  policy: string;
  invocations: string[];
  captures: string[];
}

export function forgetRecordKey(forgetId: string): string {
  return `${FORGOTTEN_PREFIX}${keySegment(forgetId)}.json`;
}

export async function putForgetRecord(backend: Backend, record: ForgetRecord): Promise<void> {
  await backend.putIfAbsent(forgetRecordKey(record.forget_id), Buffer.from(`${JSON.stringify(record)}\n`));
}

/** Every forget record, oldest first; an unreadable one is skipped. */
export async function listForgetRecords(backend: Backend): Promise<ForgetRecord[]> {
  return readForgetRecords(
    backend,
    (await backend.list(FORGOTTEN_PREFIX)).map((k) => k.key).filter((k) => k.endsWith('.json')),
  );
}

/** The forget records under `keys` (a journal names them: forgetRecordKey), oldest first. */
export async function readForgetRecords(backend: Backend, keys: readonly string[]): Promise<ForgetRecord[]> {
  const out: ForgetRecord[] = [];
  await forEachLimited(keys, 16, async (key) => {
    const record = parseForgetRecord(await backend.get(key));
    if (record) out.push(record);
  });
  return out.sort((a, b) => (a.forget_id < b.forget_id ? -1 : 1));
}

export function parseForgetRecord(bytes: Buffer | undefined): ForgetRecord | undefined {
  try {
    const value = JSON.parse(bytes?.toString('utf8') ?? '') as ForgetRecord;
    return value.kind === 'forget' && Array.isArray(value.invocations) && Array.isArray(value.captures) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Clocks of the machine that forgot and the one that ran dbt may disagree by this much. */
const CLOCK_MARGIN_MS = 60 * 60 * 1000;

/**
 * Asks whether some forget record names an invocation, reading as little as it can: the keys of
 * the forget records once (a forget id is a time id), and the records themselves only for an
 * invocation that ran before the newest forget (`ranAt` null: unknown). A forget names only
 * invocations that were archived when it ran, so a run after it is in none: a capture of a new
 * run costs one listing.
 */
export function forgottenCheck(backend: Backend): (invocationId: string, ranAt: Date | null) => Promise<boolean> {
  let keys: Promise<string[]> | undefined;
  let named: Promise<Set<string>> | undefined;
  return async (invocationId, ranAt) => {
    const listed = await (keys ??= backend.list(FORGOTTEN_PREFIX).then((found) =>
      found
        .map((k) => k.key)
        .filter((k) => k.endsWith('.json'))
        .sort(),
    ));
    if (listed.length === 0) return false;
    const newest = timeOfTimeId(listed.at(-1)!.slice(FORGOTTEN_PREFIX.length));
    if (ranAt && newest && ranAt.getTime() > newest.getTime() + CLOCK_MARGIN_MS) return false;
    named ??= readForgetRecords(backend, listed).then((records) => new Set(records.flatMap((r) => r.invocations)));
    return (await named).has(invocationId);
  };
}

/** Every invocation some forget record names. */
export async function forgottenInvocations(backend: Backend): Promise<Set<string>> {
  return new Set((await listForgetRecords(backend)).flatMap((r) => r.invocations));
}
