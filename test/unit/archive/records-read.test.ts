import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import {
  invocationsPlannedSince,
  listArtifactRecords,
  parseArtifactRecord,
  planRecordKey,
  putPlanRecord,
  type ArtifactRecord,
} from '../../../src/archive/index.js';
import { readKeys } from '../../../src/archive/records.js';
import { AtticError } from '../../../src/errors.js';
import { file } from '../../helpers/archive-builder.js';

/**
 * How readers take records (docs/archive-format.md): only damage is left out (a fault of the
 * storage or of the reader is not hidden as one), a file that is not a record is not read, and a
 * summary belongs to run_results alone. Plans' listing for retention skips what is not a plan.
 */
describe('reading records', () => {
  it('leaves out a damaged record, telling whoever asks, and fails on any other fault', async () => {
    const backend = new MemBackend();
    const records = await file(backend, { invocationId: 'inv-1' });
    const damaged = `records/invocations/inv-1/manifest-${'e'.repeat(64)}.json`;
    await backend.putIfAbsent(damaged, Buffer.from('{ not json'));
    // Nobody asked to hear of damage: still the intact records.
    expect((await listArtifactRecords(backend)).map((r) => r.sha256).sort()).toEqual([records.manifest!.sha256, records.run_results!.sha256].sort());
    const keys = (await backend.list('records/invocations/')).map((k) => k.key);
    const fault = (key: string, bytes: Buffer): ArtifactRecord => {
      if (key === damaged) throw new TypeError('a reader bug');
      return parseArtifactRecord(key, bytes);
    };
    await expect(readKeys(backend, keys, fault, () => undefined)).rejects.toThrow('a reader bug');
    // An error of ours that is not damage (a record the reader refuses to take) is not damage either.
    const refusing = (key: string, bytes: Buffer): ArtifactRecord => {
      if (key === damaged) throw new AtticError('artifact-unreadable', 'not for this reader');
      return parseArtifactRecord(key, bytes);
    };
    await expect(readKeys(backend, keys, refusing, () => undefined)).rejects.toMatchObject({ code: 'artifact-unreadable' });
    const failing = Object.assign(new MemBackend(), { get: async () => Promise.reject(Object.assign(new Error('i/o'), { code: 'EIO' })) });
    await expect(readKeys(failing, keys, parseArtifactRecord, () => undefined)).rejects.toMatchObject({ code: 'EIO' });
  });

  it('reads only records (.json), not the temp files beside them', async () => {
    const backend = new MemBackend();
    await file(backend, { invocationId: 'inv-1' });
    await backend.putIfAbsent(`records/invocations/inv-1/manifest-${'e'.repeat(64)}.json.tmp`, Buffer.from('{ half'));
    const damage: string[] = [];
    expect(await listArtifactRecords(backend, (d) => damage.push(d.key))).toHaveLength(2);
    expect(damage).toEqual([]);
  });

  it('keeps a summary only on a run_results record', async () => {
    const backend = new MemBackend();
    const records = await file(backend, { invocationId: 'inv-1', artifacts: ['manifest'] });
    const key = `records/invocations/inv-1/manifest-${records.manifest!.sha256}.json`;
    const summary = { format: 1, command: 'build', target: null, total: 1, by_status: { success: 1 } };
    const withSummary = Buffer.from(JSON.stringify({ ...records.manifest, summary }));
    expect(parseArtifactRecord(key, withSummary)).not.toHaveProperty('summary');
    const runKey = key.replace('manifest-', 'run_results-');
    expect(parseArtifactRecord(runKey, Buffer.from(JSON.stringify({ ...records.manifest, artifact: 'run_results', summary }))).summary).toEqual(summary);
  });
});

describe('plans, for retention', () => {
  it('count only plan records, and a plan whose id tells no time as made at the epoch', async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent(
      `${planRecordKey('tmp-inv', '0000000000005-aaaaaaaaaaaa')}.tmp`,
      Buffer.from(JSON.stringify({ invocation_id: 'tmp-inv', plan_id: '0000000000005-aaaaaaaaaaaa' })),
    );
    await putPlanRecord(backend, 'odd-inv', 'not-a-time-id', { invocation_id: 'odd-inv', plan_id: 'not-a-time-id' });
    expect([...(await invocationsPlannedSince(backend, 1))]).toEqual([]);
    expect([...(await invocationsPlannedSince(backend, 0))]).toEqual(['odd-inv']);
  });
});
