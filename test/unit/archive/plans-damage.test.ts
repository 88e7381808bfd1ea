import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { listPlanRecords, planRecordKey, putPlanRecord } from '../../../src/archive/index.js';

describe('a damaged plan record', () => {
  it("is left out of the invocation's plans; the intact ones are listed as written", async () => {
    const backend = new MemBackend();
    const invocation = '00000001-0000-4000-8000-0000000000a1';
    const intact = { invocation_id: invocation, plan_id: 'p1', counts: { reuse: 2, build: 1 } };
    await putPlanRecord(backend, invocation, 'p1', intact);
    await backend.putIfAbsent(planRecordKey(invocation, 'p2'), Buffer.from('{"invocation_id": "0000'));
    await putPlanRecord(backend, invocation, 'p3', { invocation_id: invocation, plan_id: 'other' });
    expect(await listPlanRecords(backend, invocation)).toEqual([intact]);
  });

  it("are listed oldest first by plan id, only the invocation's own, as written", async () => {
    const backend = new MemBackend();
    const invocation = '00000001-0000-4000-8000-0000000000a1';
    const plan = (planId: string, inv = invocation) => ({ invocation_id: inv, plan_id: planId });
    await putPlanRecord(backend, invocation, '0000000000002-b', plan('0000000000002-b'));
    await putPlanRecord(backend, invocation, '0000000000001-a', plan('0000000000001-a'));
    await putPlanRecord(backend, 'other', '0000000000000-c', plan('0000000000000-c', 'other'));
    await backend.putIfAbsent(`${planRecordKey(invocation, '0000000000000-d')}.tmp`, Buffer.from(JSON.stringify(plan('0000000000000-d'))));
    expect(await listPlanRecords(backend, invocation)).toEqual([plan('0000000000001-a'), plan('0000000000002-b')]);
  });
});
