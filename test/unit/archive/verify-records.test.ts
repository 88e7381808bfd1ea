import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import {
  ARCHIVE_FORMAT,
  planRecordKey,
  planSqlTree,
  putArtifactRecord,
  putBlob,
  putCaptureRecord,
  putForgetRecord,
  putOutputRecord,
  putPlanRecord,
  putSqlTree,
  verifyArchive,
  type ArtifactRecord,
  type OutputRecord,
  type Summarize,
} from '../../../src/archive/index.js';
import type { RunResultsSummary } from '../../../src/vocab/run-results-summary.js';
import { file } from '../../helpers/archive-builder.js';

/**
 * verify's checks of the records beside artifacts (README, "verify"): a run_results record's
 * summary against its results, plan records against the invocations the archive has, output
 * records against their blobs and SQL trees, and a capture record's entries of each status.
 */
async function healthy(): Promise<{ backend: MemBackend; records: Record<string, ArtifactRecord> }> {
  const backend = new MemBackend();
  await backend.putIfAbsent('FORMAT', Buffer.from(`${ARCHIVE_FORMAT}\n`));
  return { backend, records: await file(backend, { invocationId: 'inv-1', statuses: ['success', 'error'] }) };
}

const SUMMARY: RunResultsSummary = { format: 1, command: 'build', target: null, total: 2, by_status: { error: 1, success: 1 } };

/** The run_results record of `records` filed again, with `summary`, under an invocation of its own. */
async function withSummary(backend: MemBackend, records: Record<string, ArtifactRecord>, invocationId: string, summary: unknown): Promise<string> {
  const record = { ...records.run_results!, invocation_id: invocationId, summary } as ArtifactRecord;
  await putArtifactRecord(backend, record);
  return `records/invocations/${invocationId}/run_results-${record.sha256}.json`;
}

describe('verify and run_results summaries', () => {
  // The summary verify derives here is given, not computed: what it is checked against is the record.
  const summarize: Summarize = () => ({ format: 1, command: 'build', target: null, total: 2, by_status: { error: 1, success: 1 } });

  it('passes a summary that says what its results say, whatever the order of its keys', async () => {
    const { backend, records } = await healthy();
    await withSummary(backend, records, 'inv-2', { ...SUMMARY, by_status: { success: 1, error: 1 } });
    expect((await verifyArchive(backend, undefined, summarize)).problems).toEqual([]);
  });

  it.each([
    ['a count', { ...SUMMARY, total: 3 }],
    ['a status count', { ...SUMMARY, by_status: { error: 2, success: 1 } }],
    ['the command', { ...SUMMARY, command: 'run' }],
    ['the target', { ...SUMMARY, target: 'prod' }],
  ])('reports a summary that differs from its results in %s', async (_, summary) => {
    const { backend, records } = await healthy();
    const key = await withSummary(backend, records, 'inv-2', summary);
    expect((await verifyArchive(backend, undefined, summarize)).problems).toEqual([
      { kind: 'bad-record', key, message: 'its summary does not match the run results it points at' },
    ]);
    // Without the rule to derive summaries, verify does not judge them.
    expect((await verifyArchive(backend)).problems).toEqual([]);
  });

  it('reports results that cannot be summarised, and judges no record that has no summary', async () => {
    const { backend, records } = await healthy();
    const failing: Summarize = () => {
      throw new Error('no results');
    };
    // The builder's records carry no summary: nothing to check, whatever the rule says.
    expect((await verifyArchive(backend, undefined, failing)).problems).toEqual([]);
    const key = await withSummary(backend, records, 'inv-2', SUMMARY);
    expect((await verifyArchive(backend, undefined, failing)).problems).toEqual([
      { kind: 'bad-record', key, message: 'has a summary of run results that cannot be summarised (no results)' },
    ]);
  });
});

describe('verify and plan records', () => {
  const plan = (invocationId: string, planId: string): object => ({ invocation_id: invocationId, plan_id: planId, nodes: [] });

  it('passes a plan beside its invocation, and reports one whose invocation the archive lacks', async () => {
    const { backend } = await healthy();
    await putPlanRecord(backend, 'inv-1', '0000000000001-aaaaaaaaaaaa', plan('inv-1', '0000000000001-aaaaaaaaaaaa'));
    expect((await verifyArchive(backend)).problems).toEqual([]);
    await putPlanRecord(backend, 'inv-9', '0000000000002-aaaaaaaaaaaa', plan('inv-9', '0000000000002-aaaaaaaaaaaa'));
    expect((await verifyArchive(backend)).problems).toEqual([
      {
        kind: 'dangling-record',
        key: planRecordKey('inv-9', '0000000000002-aaaaaaaaaaaa'),
        message: 'is a plan for invocation inv-9, which has no artifact records',
      },
    ]);
  });

  it('reports a plan under another key or not a plan, and leaves alone what is not a record', async () => {
    const { backend } = await healthy();
    const moved = planRecordKey('inv-1', '0000000000003-aaaaaaaaaaaa');
    await putPlanRecord(backend, 'inv-1', '0000000000003-aaaaaaaaaaaa', plan('inv-1', '0000000000004-aaaaaaaaaaaa'));
    await backend.putIfAbsent('records/plans/inv-1/0000000000005-aaaaaaaaaaaa.json', Buffer.from('{"nodes":[]}'));
    // A file that is not a record (a writer's temp file) is none of verify's business.
    await backend.putIfAbsent('records/plans/inv-9/0000000000006-aaaaaaaaaaaa.json.tmp', Buffer.from('{'));
    const problems = (await verifyArchive(backend)).problems.sort((a, b) => a.key.localeCompare(b.key));
    expect(problems).toEqual([
      { kind: 'bad-record', key: moved, message: 'its content does not match its key' },
      { kind: 'bad-record', key: 'records/plans/inv-1/0000000000005-aaaaaaaaaaaa.json', message: 'it is not a plan record (no invocation_id or plan_id)' },
    ]);
  });
});

describe('verify and output records', () => {
  const output = (fields: Partial<OutputRecord> & Pick<OutputRecord, 'output' | 'sha256'>): OutputRecord => ({
    kind: 'output',
    format: 1,
    invocation_id: 'inv-1',
    size: 1,
    entries: 1,
    detail: {},
    captured_at: '2026-01-01T00:00:00Z',
    capture_id: 'c',
    phase: 'manual',
    ...fields,
  });
  const fileKey = (id: string): string => `files/${id.slice(0, 2)}/${id.slice(2)}`;

  it('passes a log slice whose blob is whole, and reports one whose blob is gone', async () => {
    const { backend } = await healthy();
    const log = await putBlob(backend, Buffer.from('{"invocation_id":"inv-1"}\n'));
    await putOutputRecord(backend, output({ output: 'log', sha256: log.id }));
    expect((await verifyArchive(backend)).problems).toEqual([]);
    await backend.delete(fileKey(log.id));
    const report = await verifyArchive(backend);
    expect(report.problems).toEqual([
      { kind: 'dangling-record', key: `records/outputs/inv-1/log-${log.id}.json`, message: `points at log ${log.id}, which is missing or damaged` },
    ]);
    expect(report.damaged.files).toEqual([log.id]);
  });

  it('reports a record under another key, and one that is not an output record', async () => {
    const { backend } = await healthy();
    const log = await putBlob(backend, Buffer.from('a log line\n'));
    const moved = `records/outputs/inv-2/log-${log.id}.json`;
    await backend.putIfAbsent(moved, Buffer.from(JSON.stringify(output({ output: 'log', sha256: log.id }))));
    await backend.putIfAbsent('records/outputs/inv-1/log-x.json', Buffer.from('{ not json'));
    const problems = (await verifyArchive(backend)).problems.sort((a, b) => a.key.localeCompare(b.key));
    expect(problems).toEqual([
      { kind: 'bad-record', key: 'records/outputs/inv-1/log-x.json', message: 'Record records/outputs/inv-1/log-x.json is unreadable: it is not valid JSON.' },
      { kind: 'bad-record', key: moved, message: 'its content does not match its key' },
    ]);
  });

  it('reports a SQL tree whose base tree is gone, naming the base', async () => {
    const { backend } = await healthy();
    const sql = (text: string) => Buffer.from(text);
    const files = new Map<string, { id: string; size: number }>();
    for (const name of ['a', 'b', 'c']) {
      const bytes = sql(`select '${name}'\n`);
      files.set(`compiled/p/models/${name}.sql`, { id: (await putBlob(backend, bytes)).id, size: bytes.length });
    }
    const base = await putSqlTree(backend, planSqlTree(files, null));
    const changed = sql("select 'a2'\n");
    const next = new Map(files).set('compiled/p/models/a.sql', { id: (await putBlob(backend, changed)).id, size: changed.length });
    const doc = planSqlTree(next, { id: base.id, depth: 0, files });
    expect(doc.base).toBe(base.id);
    const delta = await putSqlTree(backend, doc);
    await putOutputRecord(backend, output({ output: 'sql', sha256: delta.id }));
    expect((await verifyArchive(backend)).problems).toEqual([]);
    await backend.delete(fileKey(base.id));
    const report = await verifyArchive(backend);
    expect(report.problems).toEqual([
      { kind: 'dangling-record', key: `records/outputs/inv-1/sql-${delta.id}.json`, message: `its tree's base ${base.id} is missing or damaged` },
    ]);
    expect(report.damaged.files).toEqual([base.id]);
  });
});

describe("verify and a capture record's entries", () => {
  it.each(['captured', 'unchanged', 'repaired'])('follows an entry %s to its artifact record', async (status) => {
    const { backend, records } = await healthy();
    const manifest = records.manifest!;
    const key = 'records/captures/0000000000009-bbbbbbbbbbbb.json';
    await putCaptureRecord(backend, {
      kind: 'capture',
      format: 1,
      capture_id: '0000000000009-bbbbbbbbbbbb',
      phase: 'post',
      captured_at: '2026-01-02T04:00:00.000Z',
      tool_version: 't',
      branch: null,
      context: {},
      run: null,
      artifacts: [
        { artifact: 'manifest', status, path: 'target/manifest.json', invocation_id: 'inv-7', sha256: manifest.sha256, size: manifest.size, stored_bytes: 1 },
      ],
    } as Parameters<typeof putCaptureRecord>[1]);
    expect((await verifyArchive(backend)).problems).toEqual([
      { kind: 'dangling-record', key, message: `names records/invocations/inv-7/manifest-${manifest.sha256}.json, which is missing or damaged` },
    ]);
    // Once `forget` has removed inv-7, the entry is history, not damage.
    await putForgetRecord(backend, {
      kind: 'forget',
      format: 1,
      forget_id: '0000000000010-cccccccccccc',
      forgotten_at: '2026-01-03T00:00:00.000Z',
      policy: 'test',
      invocations: ['inv-7'],
      captures: [],
    });
    expect((await verifyArchive(backend)).problems).toEqual([]);
  });
});

describe('verify and forget records and journal entries', () => {
  it('names an unreadable one, and says a capture record may dangle because of it', async () => {
    const { backend, records } = await healthy();
    const manifest = records.manifest!;
    await putCaptureRecord(backend, {
      kind: 'capture',
      format: 1,
      capture_id: '0000000000009-bbbbbbbbbbbb',
      phase: 'post',
      captured_at: '2026-01-02T04:00:00.000Z',
      tool_version: 't',
      branch: null,
      context: {},
      run: null,
      artifacts: [
        {
          artifact: 'manifest',
          status: 'captured',
          path: 'target/manifest.json',
          invocation_id: 'inv-7',
          sha256: manifest.sha256,
          size: manifest.size,
          stored_bytes: 1,
        },
      ],
    });
    await putForgetRecord(backend, {
      kind: 'forget',
      format: 1,
      forget_id: '0000000000010-cccccccccccc',
      forgotten_at: '2026-01-03T00:00:00.000Z',
      policy: 'test',
      invocations: ['inv-7'],
      captures: [],
    });
    expect((await verifyArchive(backend)).problems).toEqual([]);
    const forget = 'records/forgotten/0000000000010-cccccccccccc.json';
    const whole = (await backend.get(forget))!;
    await backend.delete(forget);
    await backend.putIfAbsent(forget, whole.subarray(0, 30));
    await backend.putIfAbsent('records/journal/0000000000011-dddddddddddd.json', Buffer.from('{"kind": "journal", "capt'));
    expect((await verifyArchive(backend)).problems).toEqual([
      { kind: 'bad-record', key: forget, message: expect.stringContaining('the invocations it forgot are not known as forgotten') },
      { kind: 'bad-record', key: 'records/journal/0000000000011-dddddddddddd.json', message: expect.stringContaining('a store kept up through the journal') },
      {
        kind: 'dangling-record',
        key: 'records/captures/0000000000009-bbbbbbbbbbbb.json',
        message: expect.stringContaining(`(or forgotten by the unreadable ${forget})`),
      },
    ]);
  });
});
