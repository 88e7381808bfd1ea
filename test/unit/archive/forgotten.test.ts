import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import {
  forgetRecordKey,
  forgottenCheck,
  forgottenInvocations,
  invocationsPlannedSince,
  listForgetRecords,
  listHandoutsSince,
  putForgetRecord,
  putHandoutRecord,
  putPlanRecord,
  readForgetRecords,
  type ForgetRecord,
} from '../../../src/archive/index.js';

/**
 * The records retention writes and reads (docs/archive-format.md and "Retention"): forget
 * records, and what keeps an invocation from being forgotten, handouts and plans.
 */
const FORGET: ForgetRecord = {
  kind: 'forget',
  format: 1,
  forget_id: 'f2',
  forgotten_at: '2026-01-02T00:00:00.000Z',
  policy: 'keep_last: 1',
  invocations: ['i1', 'i2'],
  captures: ['c1'],
};

/** A time-ordered id as README describes it: 13 hex digits of epoch milliseconds, then random hex. */
const timeId = (ms: number, tail = '000000000000'): string => `${ms.toString(16).padStart(13, '0')}-${tail}`;
const T = Date.UTC(2026, 0, 10);

describe('forget records', () => {
  it('are written once under records/forgotten/<forget_id>.json', async () => {
    const backend = new MemBackend();
    expect(forgetRecordKey('a/b')).toBe('records/forgotten/a%2Fb.json');
    await putForgetRecord(backend, FORGET);
    await putForgetRecord(backend, { ...FORGET, invocations: [] });
    const text = (await backend.get('records/forgotten/f2.json'))?.toString('utf8') ?? '';
    expect(text.endsWith('}\n')).toBe(true);
    expect(JSON.parse(text)).toEqual(FORGET);
  });

  it('are listed oldest first whatever order they were written in, leaving out a damaged one', async () => {
    const backend = new MemBackend();
    await putForgetRecord(backend, FORGET);
    await putForgetRecord(backend, { ...FORGET, forget_id: 'f3', invocations: ['i3'] });
    await putForgetRecord(backend, { ...FORGET, forget_id: 'f1', invocations: ['i2', 'i0'] });
    const damaged: Record<string, unknown> = {
      'records/forgotten/d1.json': '{"kind":',
      'records/forgotten/d2.json': { ...FORGET, kind: 'journal', invocations: ['x'] },
      'records/forgotten/d3.json': { ...FORGET, invocations: 'x' },
      'records/forgotten/d4.json': { ...FORGET, captures: null, invocations: ['x'] },
      'records/forgotten/f9.json.tmp': { ...FORGET, invocations: ['x'] },
    };
    for (const [key, value] of Object.entries(damaged)) await backend.putIfAbsent(key, Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)));
    expect((await listForgetRecords(backend)).map((r) => r.forget_id)).toEqual(['f1', 'f2', 'f3']);
    expect((await readForgetRecords(backend, [forgetRecordKey('f3'), forgetRecordKey('gone'), forgetRecordKey('f1')])).map((r) => r.forget_id)).toEqual([
      'f1',
      'f3',
    ]);
    expect([...(await forgottenInvocations(backend))].sort()).toEqual(['i0', 'i1', 'i2', 'i3']);
  });
});

describe('handout records', () => {
  it('are written once under records/handouts/<handout_id>.json', async () => {
    const backend = new MemBackend();
    const handout = { handout_id: timeId(T), invocation_id: 'i1', by: 'state' as const, at: '2026-01-10T00:00:00.000Z' };
    await putHandoutRecord(backend, handout);
    await putHandoutRecord(backend, { ...handout, invocation_id: 'i2' });
    const text = (await backend.get(`records/handouts/${handout.handout_id}.json`))?.toString('utf8') ?? '';
    expect(text.endsWith('}\n')).toBe(true);
    expect(JSON.parse(text)).toEqual({ kind: 'handout', format: 1, ...handout });
  });

  it("protect from the moment their id names: at or after the window's start, whatever else lies there", async () => {
    const backend = new MemBackend();
    for (const [ms, invocation] of [
      [T - 1, 'before'],
      [T, 'at'],
      [T + 1, 'after'],
    ] as const) {
      await putHandoutRecord(backend, { handout_id: timeId(ms), invocation_id: invocation, by: 'state', at: new Date(ms).toISOString() });
    }
    await backend.putIfAbsent(`records/handouts/${timeId(T + 2, 'a')}.json`, Buffer.from('{"kind": "hand'));
    await backend.putIfAbsent(`records/handouts/${timeId(T + 3, 'b')}.json`, Buffer.from(JSON.stringify({ kind: 'forget', invocation_id: 'wrong-kind' })));
    await backend.putIfAbsent(`records/handouts/${timeId(T + 4, 'c')}.json`, Buffer.from(JSON.stringify({ kind: 'handout', invocation_id: 5 })));
    await backend.putIfAbsent(`records/handouts/${timeId(T + 5, 'd')}.json.tmp`, Buffer.from(JSON.stringify({ kind: 'handout', invocation_id: 'temp' })));
    // An id that names no time protects only from the epoch on.
    await backend.putIfAbsent('records/handouts/no-time.json', Buffer.from(JSON.stringify({ kind: 'handout', invocation_id: 'untimed' })));
    expect((await listHandoutsSince(backend, T)).map((h) => h.invocation_id).sort()).toEqual(['after', 'at']);
    expect((await listHandoutsSince(backend, 0)).map((h) => h.invocation_id).sort()).toEqual(['after', 'at', 'before', 'untimed']);
  });
});

describe('plans, for retention', () => {
  it('protect the invocation each plan in the window planned and every last build its verdicts name', async () => {
    const backend = new MemBackend();
    const plan = (ms: number, invocation: string, builds: (string | null)[]) => ({
      plan_id: timeId(ms),
      invocation_id: invocation,
      nodes: builds.map((b) => ({ last_build: b === null ? null : { invocation_id: b } })),
    });
    await putPlanRecord(backend, 'old', timeId(T - 1), plan(T - 1, 'old', ['old-build']));
    await putPlanRecord(backend, 'p1', timeId(T), plan(T, 'p1', ['b1', null]));
    await putPlanRecord(backend, 'p2', timeId(T + 1), { plan_id: timeId(T + 1), invocation_id: 'p2' });
    await putPlanRecord(backend, 'p3', timeId(T + 2), { plan_id: timeId(T + 2), nodes: [{ last_build: { invocation_id: 7 } }, {}] });
    expect([...(await invocationsPlannedSince(backend, T))].sort()).toEqual(['b1', 'p1', 'p2']);
    expect([...(await invocationsPlannedSince(backend, T - 1))].sort()).toEqual(['b1', 'old', 'old-build', 'p1', 'p2']);
  });
});

describe('forgottenCheck', () => {
  const counting = (backend: MemBackend): { gets: () => number } => {
    let gets = 0;
    const get = backend.get.bind(backend);
    backend.get = (key: string) => ((gets += key.startsWith('records/forgotten/') ? 1 : 0), get(key));
    return { gets: () => gets };
  };

  it('names what a forget record names, reading the records once', async () => {
    const backend = new MemBackend();
    await putForgetRecord(backend, { ...FORGET, forget_id: timeId(T) });
    const reads = counting(backend);
    const check = forgottenCheck(backend);
    expect(await check('i1', null)).toBe(true);
    expect(await check('i9', new Date(T - 1000))).toBe(false);
    expect(reads.gets()).toBe(1);
  });

  it('reads no record for a run after the newest forget (with an hour for clocks), nor with none to read', async () => {
    const backend = new MemBackend();
    const reads = counting(backend);
    expect(await forgottenCheck(backend)('i1', null)).toBe(false);
    await putForgetRecord(backend, { ...FORGET, forget_id: timeId(T) });
    expect(await forgottenCheck(backend)('new', new Date(T + 2 * 3600_000))).toBe(false);
    expect(reads.gets()).toBe(0);
    // Within the hour, the records are read.
    expect(await forgottenCheck(backend)('i2', new Date(T + 1800_000))).toBe(true);
    expect(reads.gets()).toBe(1);
  });
});
