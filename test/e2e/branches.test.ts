import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Step } from '../../fixtures/generate.mjs';
import { archiveDirOf, readCaptureRecords, sha256Of, type CaptureRecordJson } from '../helpers/archive-files.js';
import { runCliProcess } from '../helpers/cli.js';
import { startReplay, type ReplayedHistory } from '../helpers/replay.js';

/**
 * State branches through the CLI: main is the fixture replayed through `dbtattic run` (steps 01,
 * a green build, and 05, a failed one); other branches get captures of later steps' artifacts.
 */
interface BranchJson {
  name: string;
  head_capture_id: string | null;
  head_invocation_id: string | null;
  base: { invocation_id: string; branch: string | null } | null;
}
interface StateJson {
  path: string;
  invocation_id: string;
  from_base: { branch: string } | null;
}

let replay: ReplayedHistory;

beforeAll(() => {
  replay = startReplay();
  for (const n of [1, 5]) replay.replayStep(replay.step(n));
}, 60_000);
afterAll(() => replay?.remove());

const id = (n: number): string => replay.step(n).invocation_id;
const branches = (): Promise<BranchJson[]> => replay.json<BranchJson[]>(['branch', 'list', '--json']);
const historyOf = async (branch: string): Promise<string[]> =>
  (await replay.json<{ invocation_id: string }[]>(['history', '--branch', branch, '--limit', '100', '--json'])).map((h) => h.invocation_id);
const lastSuccess = (branch: string): Promise<StateJson> => replay.json<StateJson>(['state', '--last-success', '--branch', branch, '--json']);

/** A target/ holding only what the step's dbt command wrote, so a capture files that one invocation. */
function targetOf(step: Step): string {
  const dir = path.join(replay.workDir, 'targets', step.dir);
  mkdirSync(dir, { recursive: true });
  for (const file of step.artifacts_written) copyFileSync(path.join(replay.history, step.dir, 'target', file), path.join(dir, file));
  return dir;
}

describe('branch create', () => {
  it('refuses a failed run as a base unless --allow-failed is given', async () => {
    const refused = await replay.cli(['branch', 'create', 'feature', '--from', id(5).slice(0, 8)]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(`Invocation ${id(5)} is not a success`);
    expect(refused.stderr).toContain('--allow-failed');
    expect((await branches()).map((b) => b.name)).toEqual(['main']);

    const allowed = await replay.json<BranchJson>(['branch', 'create', 'hotfix', '--from', id(5), '--allow-failed', '--json']);
    expect(allowed).toMatchObject({ name: 'hotfix', base: { invocation_id: id(5), branch: 'main' } });
  });

  it('starts a branch at a past run, and refuses a name already taken', async () => {
    const created = await replay.json<BranchJson>(['branch', 'create', 'feature', '--from', id(1).slice(0, 8), '--json']);
    expect(created).toMatchObject({ name: 'feature', head_capture_id: null, base: { invocation_id: id(1), branch: 'main' } });
    const again = await replay.cli(['branch', 'create', 'feature', '--from', id(1), '--json']);
    expect(again.exitCode).toBe(2);
    expect(JSON.parse(again.stdout)).toMatchObject({ error: { code: 'usage', message: expect.stringContaining("Branch 'feature' exists already") } });
    expect((await replay.cli(['branch', 'create', 'other', '--from', 'ffffffff'])).exitCode).toBe(3);
    // @main, as every command that takes a run takes it: main's newest run.
    expect(await replay.json<BranchJson>(['branch', 'create', 'from-main', '--from', '@main', '--allow-failed', '--json'])).toMatchObject({
      base: { invocation_id: id(5) },
    });
    expect((await replay.cli(['branch', 'create', 'other', '--from', '@nope'])).exitCode).toBe(3);
    await replay.cli(['branch', 'delete', 'from-main']);

    const listed = await branches();
    expect(listed.map((b) => b.name)).toEqual(['feature', 'hotfix', 'main']);
    expect(listed.find((b) => b.name === 'main')).toMatchObject({ head_invocation_id: id(5), base: null });
    expect(listed.find((b) => b.name === 'feature')).toMatchObject({ head_invocation_id: id(1), base: { invocation_id: id(1) } });
  });
});

describe('state --last-success --branch', () => {
  it("falls back to the branch's base while it has no success of its own", async () => {
    expect(await historyOf('feature')).toEqual([]);
    expect(await historyOf('main')).toEqual([id(5), id(1)]);
    const chosen = await lastSuccess('feature');
    expect(chosen).toMatchObject({ invocation_id: id(1), from_base: { branch: 'feature' } });
    expect(sha256Of(path.join(chosen.path, 'manifest.json'))).toBe(sha256Of(path.join(replay.history, replay.step(1).dir, 'target', 'manifest.json')));

    const plain = await replay.cli(['state', '--last-success', '--branch', 'feature']);
    expect(plain.stdout).toBe(`${chosen.path}\n`);
    expect(plain.stderr).toContain(`branch feature has no success of its own; using its base ${id(1)}`);

    // Issue 44 item 12: history said "no invocations match" for the branch state answers with.
    const listed = await replay.cli(['history', '--branch', 'feature']);
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout).toBe('');
    expect(listed.stderr).toMatch(
      new RegExp(`^Branch feature has no runs of its own yet: it starts at invocation ${id(1).slice(0, 4)}[0-9a-f-]* \\(branch create\\)`),
    );
    expect(listed.stderr).not.toContain('No invocations match');
    // A filter the branch's runs do not meet is still "nothing matched": main has runs.
    expect((await replay.cli(['history', '--branch', 'main', '--command', 'seed'])).stderr).toContain('No invocations match these filters');
  });

  it('never returns a failed base as a last success: exit 3, unless --allow-failed is given again', async () => {
    // hotfix was made from step 05, a build whose results include failures.
    const refused = await replay.cli(['state', '--last-success', '--branch', 'hotfix']);
    expect(refused.exitCode).toBe(3);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`its base ${id(5)} is no success`);
    expect(refused.stderr).toContain('--allow-failed');
    const allowed = await replay.json<StateJson>(['state', '--last-success', '--branch', 'hotfix', '--allow-failed', '--json']);
    expect(allowed).toMatchObject({ invocation_id: id(5), from_base: { branch: 'hotfix' } });
  });

  it('uses the branch’s own success once a capture is filed on it (DBTATTIC_BRANCH)', async () => {
    const captured = await replay.cli(['--target-path', targetOf(replay.step(3)), 'capture', '--quiet'], { DBTATTIC_BRANCH: 'feature' });
    expect(captured.exitCode).toBe(0);
    expect(await historyOf('feature')).toEqual([id(3)]);
    expect(await lastSuccess('feature')).toMatchObject({ invocation_id: id(3), from_base: null });
    expect((await lastSuccess('main')).invocation_id).toBe(id(1));
    expect((await branches()).find((b) => b.name === 'feature')).toMatchObject({ head_invocation_id: id(3), base: { invocation_id: id(1) } });
  });
});

describe('concurrent captures onto one branch', () => {
  it('all succeed, all land in the branch history, and the head names the newest capture', async () => {
    const steps = [2, 4, 12].map((n) => replay.step(n));
    const dirs = steps.map(targetOf);
    const results = await Promise.all(
      dirs.map((dir) => runCliProcess(['--target-path', dir, 'capture', '--branch', 'feature', '--json'], { cwd: replay.project })),
    );
    for (const result of results) expect(result, result.stderr).toMatchObject({ exitCode: 0 });
    const reported = results.map((r) => JSON.parse(r.stdout) as { capture_id: string | null; artifacts: { status: string }[] });
    for (const [i, capture] of reported.entries()) {
      expect(capture.capture_id).toEqual(expect.any(String));
      expect(capture.artifacts.filter((a) => a.status === 'captured')).toHaveLength(steps[i]!.artifacts_written.length);
    }

    expect((await historyOf('feature')).sort()).toEqual([id(2), id(3), id(4), id(12)].sort());
    const onFeature = readCaptureRecords(archiveDirOf(replay.project)).filter((c) => (c as CaptureRecordJson & { branch: string | null }).branch === 'feature');
    expect(onFeature).toHaveLength(4);
    const newest = onFeature.reduce((a, b) => (a.capture_id > b.capture_id ? a : b));
    const head = (await branches()).find((b) => b.name === 'feature')!;
    expect(head.head_capture_id).toBe(newest.capture_id);
    expect(head.head_invocation_id).toBe(newest.artifacts.find((a) => a.artifact === 'run_results')!.invocation_id);
    expect(steps.map((s) => s.invocation_id)).toContain(head.head_invocation_id);

    // The newest success by dbt's own clock is step 12's build.
    expect((await lastSuccess('feature')).invocation_id).toBe(id(12));
    expect((await replay.cli(['verify'])).exitCode).toBe(0);
    expect(JSON.parse(readFileSync(path.join(archiveDirOf(replay.project), 'refs', 'branches', 'feature'), 'utf8'))).toMatchObject({
      head_capture_id: newest.capture_id,
    });
  });
});
