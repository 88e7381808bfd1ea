import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import {
  hasArtifactRecord,
  listCaptureRecordKeys,
  listInvocationIds,
  parseCaptureRecord,
  parseSqlTree,
  putArtifactRecord,
  readArtifactRecords,
  readCaptureRecords,
  readKeys,
  readSqlTree,
  repairArtifactRecord,
  putSqlTree,
  type ArtifactRecord,
  type CaptureRecord,
  type DamagedRecord,
} from '../../../src/archive/index.js';
import { parsePlanRecord } from '../../../src/archive/plans.js';
import { isAtticError } from '../../../src/errors.js';

/** Records that are damaged, repaired or refused (docs/archive-format.md and "verify"). */
const SHA = 'a'.repeat(64);
const RECORD: ArtifactRecord = {
  kind: 'artifact',
  format: 1,
  invocation_id: 'inv',
  invocation_id_source: 'metadata',
  artifact: 'manifest',
  sha256: SHA,
  size: 3,
  dbt_schema_version: 'v12',
  dbt_version: '1.9.4',
  generated_at: '2026-01-02T03:04:05Z',
  captured_at: '2026-01-02T04:00:00.000Z',
  capture_id: 'c1',
  phase: 'post',
};
const CAPTURE: CaptureRecord = {
  kind: 'capture',
  format: 1,
  capture_id: 'c1',
  phase: 'manual',
  captured_at: '2026-01-02T04:00:00.000Z',
  tool_version: 't',
  branch: null,
  context: {},
  run: null,
  artifacts: [{ artifact: 'manifest', status: 'captured', path: 'target/manifest.json', invocation_id: 'inv', sha256: SHA, size: 3, stored_bytes: 1 }],
};
const bytes = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
const keyOf = (invocation: string, artifact = 'manifest', sha = SHA): string => `records/invocations/${invocation}/${artifact}-${sha}.json`;

async function refusal(work: () => unknown): Promise<{ code: string; message: string }> {
  try {
    await work();
  } catch (error) {
    if (isAtticError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('filing an artifact record', () => {
  it('refuses an invocation id that cannot name a directory, saying why', async () => {
    const backend = new MemBackend();
    expect(await refusal(() => putArtifactRecord(backend, { ...RECORD, invocation_id: ' ' }))).toMatchObject({
      code: 'artifact-unreadable',
      message: expect.stringMatching(/^The manifest cannot be filed: .+\.$/),
    });
    expect(await backend.list('')).toEqual([]);
  });

  it('is repaired only when the record under its key cannot be read', async () => {
    const backend = new MemBackend();
    expect(await repairArtifactRecord(backend, RECORD)).toBe(false);
    expect(await backend.has(keyOf('inv'))).toBe(false);
    await putArtifactRecord(backend, RECORD);
    expect(await repairArtifactRecord(backend, { ...RECORD, size: 99 })).toBe(false);
    await backend.delete(keyOf('inv'));
    await backend.putIfAbsent(keyOf('inv'), Buffer.from('{"kind": "arti'));
    expect(await repairArtifactRecord(backend, RECORD)).toBe(true);
    expect(await readArtifactRecords(backend, [keyOf('inv')])).toEqual([RECORD]);
    expect(await hasArtifactRecord(backend, 'inv', 'manifest', SHA)).toBe(true);
    expect(await hasArtifactRecord(backend, 'inv', 'run_results', SHA)).toBe(false);
  });
});

describe('reading records', () => {
  it('lists invocation ids from keys alone, decoded, each once', async () => {
    const backend = new MemBackend();
    await putArtifactRecord(backend, RECORD);
    await putArtifactRecord(backend, { ...RECORD, artifact: 'run_results' });
    await putArtifactRecord(backend, { ...RECORD, invocation_id: 'a/b c' });
    await backend.putIfAbsent('records/invocations/skipped/manifest.json.tmp', Buffer.from('{}'));
    expect((await listInvocationIds(backend)).sort()).toEqual(['a/b c', 'inv']);
  });

  it('lists capture record keys, and reads capture records, handing a damaged one on', async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('records/captures/c1.json', bytes(CAPTURE));
    await backend.putIfAbsent('records/captures/c2.json', bytes({ ...CAPTURE, capture_id: 'c2', artifacts: [{ artifact: 'manifesto', status: 'captured' }] }));
    await backend.putIfAbsent('records/captures/c3.json.tmp', bytes(CAPTURE));
    const keys = (await listCaptureRecordKeys(backend)).sort();
    expect(keys).toEqual(['records/captures/c1.json', 'records/captures/c2.json']);
    const damaged: DamagedRecord[] = [];
    expect(await readCaptureRecords(backend, [...keys, 'records/captures/gone.json'], (d) => void damaged.push(d))).toEqual([CAPTURE]);
    expect(damaged).toEqual([
      {
        key: 'records/captures/c2.json',
        invocation_id: null,
        artifact: null,
        object_id: null,
        message: "Record records/captures/c2.json is unreadable: an artifact entry is not one capture writes. Run 'dbtattic verify'.",
      },
    ]);
  });

  it("names the invocation, artifact or output, and object a damaged record's key gives", async () => {
    const backend = new MemBackend();
    const keys = [
      keyOf('inv%20one'),
      `records/outputs/inv/log-${SHA}.json`,
      keyOf('inv', 'catalogue'),
      `records/outputs/inv/html-${SHA}.json`,
      keyOf('bad%E0%A4'),
      keyOf('inv', 'manifest', 'xyz'),
    ];
    for (const key of keys) await backend.putIfAbsent(key, Buffer.from('not json'));
    const damaged: DamagedRecord[] = [];
    await readArtifactRecords(backend, keys, (d) => void damaged.push(d));
    const named = Object.fromEntries(damaged.map((d) => [d.key, [d.invocation_id, d.artifact, d.object_id]]));
    expect(named).toEqual({
      [keys[0]!]: ['inv one', 'manifest', SHA],
      [keys[1]!]: ['inv', 'log', SHA],
      [keys[2]!]: [null, null, null],
      [keys[3]!]: [null, null, null],
      [keys[4]!]: ['bad%E0%A4', 'manifest', SHA],
      [keys[5]!]: [null, null, null],
    });
  });

  it('lets an error that is not damage through, and skips a key that is gone', async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('k', Buffer.from('x'));
    const failing = (): never => {
      throw new Error('a bug, not damage');
    };
    await expect(readKeys(backend, ['k'], failing)).rejects.toThrow('a bug, not damage');
    expect(await readKeys(backend, ['gone'], failing)).toEqual([]);
  });
});

describe('parseCaptureRecord', () => {
  it('keeps outputs when the record lists them, and takes a context that is not a mapping as empty', () => {
    const outputs = [{ output: 'log', invocation_id: 'inv', sha256: SHA, status: 'captured' }];
    expect(parseCaptureRecord('k', bytes({ ...CAPTURE, outputs }))).toEqual({ ...CAPTURE, outputs });
    expect(parseCaptureRecord('k', bytes({ ...CAPTURE, outputs: 'none', context: ['x'] }))).toEqual(CAPTURE);
    expect(
      parseCaptureRecord('k', bytes({ ...CAPTURE, artifacts: [{ ...CAPTURE.artifacts[0], invocation_id: null, sha256: undefined }] })).artifacts,
    ).toHaveLength(1);
  });

  it('refuses an artifact entry capture does not write', async () => {
    const entries = [
      null,
      'manifest',
      { artifact: 'manifest' },
      { artifact: 7, status: 'captured' },
      { artifact: 'manifest', status: 'captured', invocation_id: 5 },
      { artifact: 'manifest', status: 'captured', sha256: 5 },
    ];
    for (const entry of entries) {
      expect(await refusal(() => parseCaptureRecord('k', bytes({ ...CAPTURE, artifacts: [entry] })))).toEqual({
        code: 'archive-damaged',
        message: "Record k is unreadable: an artifact entry is not one capture writes. Run 'dbtattic verify'.",
      });
    }
  });
});

describe('SQL trees and plan records, damaged', () => {
  it('calls bytes that are not a tree document damage, naming the tree', async () => {
    const tree = { kind: 'sql-tree', format: 1, base: null, depth: 0, files: {}, removed: [] };
    expect(parseSqlTree(SHA, bytes(tree))).toEqual(tree);
    for (const doc of [
      { ...tree, kind: 'x' },
      { ...tree, format: 2 },
      { ...tree, files: null },
      { ...tree, files: 'a' },
      { ...tree, removed: {} },
    ]) {
      expect(await refusal(() => parseSqlTree(SHA, bytes(doc)))).toEqual({
        code: 'archive-damaged',
        message: `SQL tree ${SHA} is not a tree document. Run 'dbtattic verify'.`,
      });
    }
    expect(await refusal(() => parseSqlTree(SHA, Buffer.from('{')))).toMatchObject({ code: 'archive-damaged' });
  });

  it('reads a delta chain of up to 16 deltas on its base, and refuses a longer one', async () => {
    const backend = new MemBackend();
    const ids: string[] = [];
    for (let depth = 0; depth <= 17; depth++) {
      ids.push(
        (await putSqlTree(backend, { kind: 'sql-tree', format: 1, base: ids.at(-1) ?? null, depth, files: { [`f${depth}.sql`]: [SHA, depth] }, removed: [] }))
          .id,
      );
    }
    expect((await readSqlTree(backend, ids[16]!)).files.size).toBe(17);
    expect(await refusal(() => readSqlTree(backend, ids[17]!))).toEqual({
      code: 'archive-damaged',
      message: `SQL tree ${ids[17]} has a delta chain longer than 16. Run 'dbtattic verify'.`,
    });
  });

  it('refuses a plan record without ids, or under another key', () => {
    expect(() => parsePlanRecord('records/plans/i/p.json', bytes({ invocation_id: 'i' }))).toThrow('it is not a plan record (no invocation_id or plan_id)');
    expect(() => parsePlanRecord('records/plans/i/p.json', bytes({ plan_id: 'p' }))).toThrow('it is not a plan record (no invocation_id or plan_id)');
    expect(() => parsePlanRecord('records/plans/i/q.json', bytes({ invocation_id: 'i', plan_id: 'p' }))).toThrow('its content does not match its key');
    expect(parsePlanRecord('records/plans/i/p.json', bytes({ invocation_id: 'i', plan_id: 'p' }))).toEqual({ invocation_id: 'i', plan_id: 'p' });
  });
});
