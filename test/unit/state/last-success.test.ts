import { describe, expect, it } from 'vitest';
import { synthesizePerNodeState } from '../../../src/state/synthesize.js';
import { createBranch } from '../../../src/archive/index.js';
import { isAtticError } from '../../../src/errors.js';
import { chooseState, DEPLOY_COMMANDS } from '../../../src/state/index.js';
import { file, newArchive } from '../../helpers/archive-builder.js';

const at = (hour: number): string => `2026-01-02T${String(hour).padStart(2, '0')}:00:00Z`;

async function chosen(backend: ReturnType<typeof newArchive>, query: Parameters<typeof chooseState>[1] = {}): Promise<string> {
  return (await chooseState(backend, query)).invocation.invocationId;
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!isAtticError(error)) throw new Error(`expected an AtticError, got ${String(error)}`);
  return { code: error.code, message: error.message };
}

describe('chooseState --last-success', () => {
  it('takes the newest build or run with results, none failed', async () => {
    expect(DEPLOY_COMMANDS).toEqual(['build', 'run']);
    const backend = newArchive();
    await file(backend, { invocationId: 'old-build', generatedAt: at(1), command: 'build' });
    await file(backend, { invocationId: 'good-run', generatedAt: at(2), command: 'run' });
    await file(backend, { invocationId: 'failed', generatedAt: at(3), command: 'build', statuses: ['success', 'error'] });
    await file(backend, { invocationId: 'partial', generatedAt: at(4), command: 'build', statuses: ['partial success'] });
    await file(backend, { invocationId: 'compile', generatedAt: at(5), command: 'compile' });
    await file(backend, { invocationId: 'empty', generatedAt: at(6), command: 'build', statuses: [] });
    await file(backend, { invocationId: 'parse', generatedAt: at(7), artifacts: ['manifest'] });
    await file(backend, { invocationId: 'no-manifest', generatedAt: at(8), artifacts: ['run_results'] });
    const choice = await chooseState(backend, {});
    expect(choice.invocation.invocationId).toBe('good-run');
    expect(choice.summary).toMatchObject({ command: 'run', total: 1, failed: 0 });
    expect(choice.fromBase).toBeUndefined();
  });

  it('filters by command and target', async () => {
    const backend = newArchive();
    await file(backend, { invocationId: 'prod-build', generatedAt: at(1), command: 'build', target: 'prod' });
    await file(backend, { invocationId: 'dev-build', generatedAt: at(2), command: 'build', target: 'dev' });
    await file(backend, { invocationId: 'test', generatedAt: at(3), command: 'test', target: 'prod' });
    expect(await chosen(backend)).toBe('dev-build');
    expect(await chosen(backend, { target: 'prod' })).toBe('prod-build');
    expect(await chosen(backend, { commands: ['test', 'seed'] })).toBe('test');
    expect(await chosen(backend, { commands: ['test'], target: 'prod' })).toBe('test');
  });

  it('says what it looked for when nothing matches', async () => {
    const backend = newArchive();
    await file(backend, { invocationId: 'failed', generatedAt: at(1), statuses: ['fail'], branch: 'main' });
    expect(await refusal(chooseState(backend, { target: 'prod', branch: 'main' }))).toEqual({
      code: 'not-found',
      message:
        "No successful invocation in the archive (command build|run, target prod, branch main). Capture a successful 'dbt build' first, or widen the search with --command.",
    });
    expect((await refusal(chooseState(backend, {}))).message).toContain('(command build|run)');
  });
});

describe('chooseState on a branch', () => {
  it('takes only invocations first filed on the branch', async () => {
    const backend = newArchive();
    await file(backend, { invocationId: 'on-main', generatedAt: at(1), branch: 'main' });
    await file(backend, { invocationId: 'on-feature', generatedAt: at(2), branch: 'feature', capturedAt: '2026-01-02T05:00:00.000Z' });
    // Filed again later from main: the branch of the first filing stands.
    await file(backend, { invocationId: 'on-feature', generatedAt: at(2), branch: 'main', capturedAt: '2026-01-02T06:00:00.000Z' });
    expect(await chosen(backend, { branch: 'main' })).toBe('on-main');
    expect(await chosen(backend, { branch: 'feature' })).toBe('on-feature');
  });

  it('takes the branch of the capture that filed the invocation, not of one that found it already filed', async () => {
    const backend = newArchive();
    // Two captures a moment apart: the earlier-named one found the records the other had just written.
    await file(backend, { invocationId: 'raced', generatedAt: at(1), branch: 'main', status: 'unchanged', capturedAt: '2026-01-02T05:00:00.000Z' });
    await file(backend, { invocationId: 'raced', generatedAt: at(1), branch: 'feature', capturedAt: '2026-01-02T05:00:00.001Z' });
    expect(await chosen(backend, { branch: 'feature' })).toBe('raced');
    expect((await refusal(chooseState(backend, { branch: 'main' }))).code).toBe('not-found');
  });

  it('falls back to the run a branch was created from while it has no success of its own', async () => {
    const backend = newArchive();
    await file(backend, { invocationId: 'base-run', generatedAt: at(1), branch: 'main' });
    await file(backend, { invocationId: 'newer-main', generatedAt: at(2), branch: 'main' });
    await file(backend, { invocationId: 'feature-failed', generatedAt: at(3), branch: 'feature', statuses: ['error'] });
    await createBranch(backend, 'feature', { invocation_id: 'base-run', branch: 'main' }, new Date());
    const choice = await chooseState(backend, { branch: 'feature' });
    expect(choice.invocation.invocationId).toBe('base-run');
    expect(choice.fromBase).toEqual({ branch: 'feature' });
    expect(choice.summary).toMatchObject({ total: 1, failed: 0 });
    await file(backend, { invocationId: 'feature-ok', generatedAt: at(4), branch: 'feature' });
    expect(await chosen(backend, { branch: 'feature' })).toBe('feature-ok');
    // A branch that never existed is a typo (exit 2), not "nothing matched" (exit 3), which slim CI reads as "build everything".
    expect(await refusal(chooseState(backend, { branch: 'mian' }))).toEqual({
      code: 'usage',
      message: "No branch 'mian' in the archive (branches: feature, main). Check the name with dbtattic branch list.",
    });
    expect(await refusal(chooseState(backend, { branch: 'mian', walk: true }))).toMatchObject({ code: 'usage' });
    expect(await refusal(synthesizePerNodeState(backend, { branch: 'mian' }))).toMatchObject({ code: 'usage' });
  });
});

describe('chooseState --invocation', () => {
  it('takes an invocation with a manifest by id or unique prefix, failed or not', async () => {
    const backend = newArchive();
    await file(backend, { invocationId: 'abc-111', generatedAt: at(1), statuses: ['error'] });
    await file(backend, { invocationId: 'abd-222', generatedAt: at(2) });
    await file(backend, { invocationId: 'abe-333', generatedAt: at(3), artifacts: ['run_results'] });
    const choice = await chooseState(backend, { invocation: 'abc' });
    expect(choice.invocation.invocationId).toBe('abc-111');
    expect(choice.summary).toMatchObject({ failed: 1 });
    expect(await chosen(backend, { invocation: 'abd-222' })).toBe('abd-222');
    expect((await refusal(chooseState(backend, { invocation: 'ab' }))).code).toBe('ambiguous-id');
    // An id history lists is told what it lacks, not sent back to history (issue 44 item 10).
    expect(await refusal(chooseState(backend, { invocation: 'abe' }))).toEqual({
      code: 'not-found',
      message:
        "Invocation abe-333 has no manifest of its own (it archived run_results.json only), and dbt's --state needs one. Name a run that has one, or use --last-success.",
    });
    expect((await refusal(chooseState(backend, { invocation: 'zzz' }))).message).toBe(
      "No invocation with a manifest matches 'zzz'. List them with 'dbtattic history'.",
    );
  });

  it('gives no summary for an invocation without run results', async () => {
    const backend = newArchive();
    await file(backend, { invocationId: 'parse', artifacts: ['manifest'] });
    expect((await chooseState(backend, { invocation: 'parse' })).summary).toBeNull();
  });
});
