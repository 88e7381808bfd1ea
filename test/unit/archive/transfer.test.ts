import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { advanceBranch, putCaptureRecord, readBranch, transferArchive, type Backend } from '../../../src/archive/index.js';

const now = new Date('2026-03-01T00:00:00Z');

async function capture(backend: Backend, id: string): Promise<void> {
  await putCaptureRecord(backend, { kind: 'capture', format: 1, capture_id: id, phase: 'manual', captured_at: now.toISOString(), tool_version: 't', branch: 'main', context: {}, run: null, artifacts: [] });
  await advanceBranch(backend, 'main', id, null, now);
}

describe('transferArchive', () => {
  it('creates and advances branch heads, and reports a diverged one without overwriting it', async () => {
    const [a, b] = [new MemBackend(), new MemBackend()];
    await capture(a, '0000000000001-aaaaaaaaaaaa');
    expect((await transferArchive(a, b)).branches).toEqual([{ name: 'main', outcome: 'created', source: '0000000000001-aaaaaaaaaaaa', target: null }]);

    await capture(a, '0000000000002-aaaaaaaaaaaa');
    expect((await transferArchive(a, b)).branches[0]).toMatchObject({ outcome: 'advanced' });
    expect((await readBranch(b, 'main'))?.head_capture_id).toBe('0000000000002-aaaaaaaaaaaa');

    await capture(a, '0000000000003-aaaaaaaaaaaa');
    await capture(b, '0000000000004-bbbbbbbbbbbb');
    const report = await transferArchive(a, b);
    expect(report.branches[0]).toMatchObject({ outcome: 'diverged' });
    expect(report.captures).toBe(1);
    expect((await readBranch(b, 'main'))?.head_capture_id).toBe('0000000000004-bbbbbbbbbbbb');
    expect(await transferArchive(a, b)).toMatchObject({ captures: 0, artifactRecords: 0, objects: 0 });
  });
});
