import type { Backend } from './backend.js';
import { keySegment } from './layout.js';
import { forEachLimited } from '../vocab/parallel.js';
import { timeOfTimeId } from '../vocab/index.js';

/**
 * A handout record, `records/handouts/<handout_id>.json`, says that `state` gave an invocation
 * to a job (a CI run deferring to it with --state). Retention never forgets an invocation
 * handed out within its keep window: the job may still be reading it. Handout ids are
 * time-ordered, so the window is read from the keys alone.
 */
export const HANDOUTS_PREFIX = 'records/handouts/';

export interface HandoutRecord {
  kind: 'handout';
  format: 1;
  handout_id: string;
  invocation_id: string;
  by: 'state';
  at: string;
}

export async function putHandoutRecord(backend: Backend, record: Omit<HandoutRecord, 'kind' | 'format'>): Promise<void> {
  const full: HandoutRecord = { kind: 'handout', format: 1, ...record };
  await backend.putIfAbsent(`${HANDOUTS_PREFIX}${keySegment(record.handout_id)}.json`, Buffer.from(`${JSON.stringify(full)}\n`));
}

/** Handouts made at or after `sinceMs`. */
export async function listHandoutsSince(backend: Backend, sinceMs: number): Promise<HandoutRecord[]> {
  const keys = (await backend.list(HANDOUTS_PREFIX))
    .map((k) => k.key)
    .filter((k) => k.endsWith('.json') && (timeOfTimeId(decodeURIComponent(k.slice(HANDOUTS_PREFIX.length)))?.getTime() ?? 0) >= sinceMs);
  const out: HandoutRecord[] = [];
  await forEachLimited(keys, 16, async (key) => {
    try {
      const value = JSON.parse((await backend.get(key))?.toString('utf8') ?? '') as HandoutRecord;
      if (value.kind === 'handout' && typeof value.invocation_id === 'string') out.push(value);
    } catch {
      // not a handout we wrote: it protects nothing
    }
  });
  return out;
}
