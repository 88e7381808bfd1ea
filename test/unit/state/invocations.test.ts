import { describe, expect, it } from 'vitest';
import { putArtifactRecord } from '../../../src/archive/index.js';
import { listArchivedInvocations } from '../../../src/state/index.js';
import { file, newArchive } from '../../helpers/archive-builder.js';

describe('listArchivedInvocations', () => {
  it('groups records by invocation, newest first by when dbt finished (run_results generated_at)', async () => {
    const backend = newArchive();
    await file(backend, { invocationId: 'aaaa', generatedAt: '2026-01-02T10:00:00Z' });
    await file(backend, { invocationId: 'cccc', generatedAt: '2026-01-02T12:00:00Z' });
    await file(backend, { invocationId: 'bbbb', generatedAt: '2026-01-02T11:00:00Z' });
    const listed = await listArchivedInvocations(backend);
    expect(listed.map((inv) => [inv.invocationId, inv.generatedAt])).toEqual([
      ['cccc', '2026-01-02T12:00:00Z'],
      ['bbbb', '2026-01-02T11:00:00Z'],
      ['aaaa', '2026-01-02T10:00:00Z'],
    ]);
    expect(Object.keys(listed[0]!.artifacts).sort()).toEqual(['manifest', 'run_results']);
  });

  it("takes run_results' time over a later manifest's, and the newest artifact's when there are no results", async () => {
    const backend = newArchive();
    await file(backend, { invocationId: 'with-results', generatedAt: '2026-01-02T10:00:00Z' });
    await file(backend, { invocationId: 'with-results', generatedAt: '2026-01-02T13:00:00Z', artifacts: ['manifest'], capturedAt: '2026-01-02T13:00:01.000Z' });
    await file(backend, { invocationId: 'parse-only', generatedAt: '2026-01-02T11:00:00Z', artifacts: ['manifest'] });
    await file(backend, { invocationId: 'parse-only', generatedAt: '2026-01-02T12:00:00Z', artifacts: ['sources'] });
    const listed = await listArchivedInvocations(backend);
    expect(listed.map((inv) => [inv.invocationId, inv.generatedAt])).toEqual([
      ['parse-only', '2026-01-02T12:00:00Z'],
      ['with-results', '2026-01-02T10:00:00Z'],
    ]);
  });

  it('never dates a run by when an artifact without generated_at (semantic_manifest.json) was captured', async () => {
    const backend = newArchive();
    const { manifest } = await file(backend, { invocationId: 'parse', generatedAt: '2024-06-03T11:30:00Z', artifacts: ['manifest'] });
    await putArtifactRecord(backend, { ...manifest!, artifact: 'semantic_manifest', generated_at: null, captured_at: '2026-12-05T05:52:00.000Z' });
    const listed = await listArchivedInvocations(backend);
    expect(listed.map((inv) => [inv.invocationId, inv.generatedAt, Object.keys(inv.artifacts).sort().join()])).toEqual([
      ['parse', '2024-06-03T11:30:00Z', 'manifest,semantic_manifest'],
    ]);
  });

  it('compares times with and without a trailing Z alike, and breaks ties by id', async () => {
    const backend = newArchive();
    await file(backend, { invocationId: 'zulu', generatedAt: '2026-01-02T10:00:00.5Z' });
    await file(backend, { invocationId: 'bare', generatedAt: '2026-01-02T10:00:00.4' });
    await file(backend, { invocationId: 'tie-a', generatedAt: '2026-01-02T09:00:00Z' });
    await file(backend, { invocationId: 'tie-b', generatedAt: '2026-01-02T09:00:00' });
    const listed = await listArchivedInvocations(backend);
    expect(listed.map((inv) => inv.invocationId)).toEqual(['zulu', 'bare', 'tie-b', 'tie-a']);
  });

  it.each([true, false])('keeps the newest record of each artifact (newest filed first: %s)', async (newestFirst) => {
    const backend = newArchive();
    const fileLate = () =>
      file(backend, { invocationId: 'inv', generatedAt: '2026-01-02T10:30:00Z', statuses: ['success', 'success'], capturedAt: '2026-01-02T10:31:00.000Z' });
    const fileEarly = () => file(backend, { invocationId: 'inv', generatedAt: '2026-01-02T10:00:00Z', capturedAt: '2026-01-02T10:40:00.000Z' });
    const late = newestFirst ? await fileLate() : (await fileEarly(), await fileLate());
    if (newestFirst) await fileEarly();
    const [inv] = await listArchivedInvocations(backend);
    expect(inv!.artifacts.manifest!.sha256).toBe(late.manifest!.sha256);
    expect(inv!.artifacts.run_results!.sha256).toBe(late.run_results!.sha256);
  });

  it('takes the newest artifact time of an invocation without results, whatever the listing order', async () => {
    const backend = newArchive();
    await file(backend, { invocationId: 'parse-only', generatedAt: '2026-01-02T12:00:00Z', artifacts: ['sources'] });
    await file(backend, { invocationId: 'parse-only', generatedAt: '2026-01-02T11:00:00Z', artifacts: ['manifest'] });
    const [inv] = await listArchivedInvocations(backend);
    expect(inv!.generatedAt).toBe('2026-01-02T12:00:00Z');
  });
});
