import { describe, expect, it } from 'vitest';
import { readBranch, type ArtifactRecord } from '../../../src/archive/index.js';
import { isAtticError } from '../../../src/errors.js';
import { createBranchFrom } from '../../../src/state/index.js';
import { file, newArchive } from '../../helpers/archive-builder.js';

const NOW = new Date('2026-02-01T00:00:00Z');

describe('createBranchFrom', () => {
  it('starts a branch at a successful run, recording the branch that run was on', async () => {
    const backend = newArchive();
    await file(backend, { invocationId: 'good-run', branch: 'main' });
    const branch = await createBranchFrom(backend, 'feature', 'good', false, NOW);
    expect(branch).toEqual({
      name: 'feature',
      head_capture_id: null,
      head_invocation_id: 'good-run',
      base: { invocation_id: 'good-run', branch: 'main' },
      created_at: NOW.toISOString(),
    });
    expect(await readBranch(backend, 'feature')).toEqual(branch);
  });

  it('takes the invocation the prefix names among several, on the branch of the first capture that filed it', async () => {
    const backend = newArchive();
    await file(backend, { invocationId: 'aaa-first', branch: 'main', generatedAt: '2026-01-02T09:00:00Z', statuses: ['error'] });
    const other = await file(backend, { invocationId: 'zzz-other', artifacts: ['manifest'], capturedAt: '2026-01-02T03:00:00.000Z' });
    const second = await file(backend, { invocationId: 'bbb-second', branch: 'dev', capturedAt: '2026-01-02T05:00:00.000Z' });
    const entry = (record: ArtifactRecord, status: string) => ({
      artifact: record.artifact,
      status,
      path: 'target/x.json',
      invocation_id: record.invocation_id,
      sha256: record.sha256,
      size: record.size,
      stored_bytes: 0,
    });
    const capture = async (id: string, branch: string, artifacts: object[]) =>
      backend.putIfAbsent(
        `records/captures/${id}.json`,
        Buffer.from(
          JSON.stringify({
            kind: 'capture',
            format: 1,
            capture_id: id,
            phase: 'post',
            captured_at: '2026-01-02T04:00:00.000Z',
            tool_version: 'test',
            branch,
            context: {},
            run: null,
            artifacts,
          }),
        ),
      );
    // An earlier capture that found the results already filed, then the one that filed them beside another invocation's manifest.
    await capture('0000000000001-000000000000', 'main', [entry(second.run_results!, 'unchanged')]);
    await capture('0000000000002-000000000000', 'release', [entry(other.manifest!, 'captured'), entry(second.run_results!, 'captured')]);
    expect((await createBranchFrom(backend, 'from-second', 'bbb', false, NOW)).base).toEqual({ invocation_id: 'bbb-second', branch: 'release' });
    const error = await createBranchFrom(backend, 'nothing', 'ccc', false, NOW).catch((e: unknown) => e);
    expect((error as Error).message).toBe("No invocation matches 'ccc'. List them with 'dbtattic history'.");
  });

  it.each([
    ['a run with a failed result', { statuses: ['success', 'error'] }, '1 of its 2 results failed'],
    ['a run with no results', { statuses: [] }, '0 of its 0 results failed'],
    ['an invocation without run results', { artifacts: ['manifest' as const] }, 'it has no run results'],
  ])('refuses %s unless --allow-failed', async (_what, filing, why) => {
    const backend = newArchive();
    await file(backend, { invocationId: 'bad-run', ...filing });
    const error = await createBranchFrom(backend, 'feature', 'bad-run', false, NOW).catch((e: unknown) => e);
    expect(isAtticError(error) && error.code).toBe('usage');
    expect((error as Error).message).toBe(`Invocation bad-run is not a success (${why}). Pass --allow-failed to branch from it anyway.`);
    expect(await readBranch(backend, 'feature')).toBeNull();
    const forced = await createBranchFrom(backend, 'feature', 'bad-run', true, NOW);
    expect(forced.base).toEqual({ invocation_id: 'bad-run', branch: null });
  });
});
