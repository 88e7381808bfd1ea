import { beforeAll, describe, expect, it } from 'vitest';
import { listArtifactRecords, readBlob, verifyArchive, CHUNKS_PREFIX, FILES_PREFIX } from '../../../src/archive/index.js';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { applyForget, evaluatePolicy, pruneArchive, predictShrink, EMPTY_POLICY, type ForgetPlan } from '../../../src/retention/index.js';
import { syntheticManifest, syntheticRunResults } from '../../helpers/synthetic-artifacts.js';
import { calendarHours, fileYear, handOut, HOURS, IMPORTED_AT, pinHead, yearRun, yearRuns, type Run } from '../../helpers/year-history.js';

const POLICY = { ...EMPTY_POLICY, last: 10, daily: 7, monthly: 12 };

describe('forget and prune on a year of hourly runs on two branches', () => {
  const backend = new MemBackend();
  const runs = yearRuns();
  const now = new Date(IMPORTED_AT + 3_600_000);
  const head = yearRun('main', 4000);
  const handedOut = yearRun('main', 100);
  const handedOutLongAgo = yearRun('main', 200);
  const devNewestSuccess = yearRun('dev', HOURS - 21);
  let plan: ForgetPlan;
  let expected: Set<string>;

  beforeAll(async () => {
    await backend.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 1\n'));
    await fileYear(backend, runs);
    await pinHead(backend, 'main', head);
    await handOut(backend, handedOut, new Date(now.getTime() - 86_400_000));
    await handOut(backend, handedOutLongAgo, new Date(now.getTime() - 30 * 86_400_000));
    const hours = calendarHours();
    expected = new Set([...runs.filter((r) => hours.has(r.hour)).map((r) => r.id), head.id, handedOut.id, devNewestSuccess.id]);
    plan = await evaluatePolicy(backend, POLICY, { now });
  }, 600_000);

  it('keeps exactly the calendar set, the head, what was handed out lately, and dev newest success', () => {
    expect(new Set(plan.keep)).toEqual(expected);
    expect(plan.forget.length).toBe(runs.length - expected.size);
    const why = (run: Run): string[] | undefined => plan.decisions.find((d) => d.id === run.id)?.reasons;
    expect(why(head)).toEqual(['branch head']);
    expect(why(handedOut)).toEqual(['handed out']);
    expect(why(devNewestSuccess)).toEqual(['newest success']);
    expect(why(handedOutLongAgo)).toEqual([]);
  });

  it('after forget and prune: only kept records, each artifact restores byte for byte, verify is clean, nothing unneeded stays', async () => {
    const predicted = await predictShrink(backend, plan.forget);
    const sizeBefore = await archiveBytes(backend);
    const { forgetId } = await applyForget(backend, plan.forget, 'test', now);
    const report = await pruneArchive(backend, { now: new Date(Date.now() + 1000), graceMs: 0, dryRun: false });
    // forget adds its own forget record and journal entry: not part of what it frees
    const added = forgetRecordBytes([...(await backend.list('records/forgotten/')), ...(await backend.list(`records/journal/${forgetId}`))]);
    expect(sizeBefore - (await archiveBytes(backend))).toBe(predicted.bytes - added);
    expect(report.files).toBe(predicted.files);

    const records = await listArtifactRecords(backend);
    expect(new Set(records.map((r) => r.invocation_id))).toEqual(expected);
    const byId = new Map(runs.map((r) => [r.id, r]));
    for (const record of records) {
      const run = byId.get(record.invocation_id)!;
      const inv = { invocationId: run.id, command: 'build', target: run.target, statuses: run.statuses, generatedAt: run.ranAt };
      const original = record.artifact === 'manifest' ? syntheticManifest(inv) : syntheticRunResults(inv);
      expect((await readBlob(backend, record.sha256)).equals(Buffer.from(original))).toBe(true);
    }
    const verified = await verifyArchive(backend);
    expect(verified.problems).toEqual([]);
    // every remaining file is some kept record's
    expect((await backend.list(FILES_PREFIX)).length).toBe(new Set(records.map((r) => r.sha256)).size);
    expect((await backend.list(CHUNKS_PREFIX)).length).toBeLessThanOrEqual(records.length);
  }, 600_000);
});

async function archiveBytes(backend: MemBackend): Promise<number> {
  return (await backend.list('')).reduce((sum, k) => sum + k.size, 0);
}

function forgetRecordBytes(keys: { size: number }[]): number {
  return keys.reduce((sum, k) => sum + k.size, 0);
}
