import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayedHistory, type ReplayedHistory } from '../helpers/replay.js';

/**
 * The fixture history replayed, then all but the newest run forgotten and pruned. target/ still
 * holds a catalog of a forgotten `docs generate`, and logs/dbt.log the slices of every forgotten
 * run: the next capture must not file any of them again, or `forget` is undone by the shell
 * wrapper in front of the next dbt command.
 */
describe('a capture after forget', () => {
  let replay: ReplayedHistory;
  beforeAll(async () => {
    replay = await replayedHistory();
    expect([...replay.exitCodes]).toEqual(replay.steps.map((s) => [s.step, s.exit_code]));
  }, 180_000);
  afterAll(() => replay?.remove());

  it('files nothing of a forgotten invocation again: artifacts in target/ or slices of dbt.log', async () => {
    const history = async (): Promise<string[]> =>
      (await replay.json<{ invocation_id: string }[]>(['history', '--json', '--limit', '100'])).map((r) => r.invocation_id).sort();
    await replay.json(['forget', '--keep-last', '1', '--json']);
    expect((await replay.cli(['prune', '--grace', '0'])).exitCode).toBe(0);
    const kept = await history();
    const forgotten = replay.steps.map((s) => s.invocation_id).filter((id) => !kept.includes(id));
    expect(forgotten.length).toBeGreaterThan(0);
    const outputsBefore = outputRecordFiles(replay.project, forgotten);

    const capture = await replay.json<{ artifacts: { invocation_id: string | null; status: string }[] }>(['capture', '--json']);
    // The catalog in target/ is the forgotten docs generate's: the last step to write one.
    const docs = replay.steps.findLast((s) => s.artifacts_written.includes('catalog.json'))!;
    expect(forgotten).toContain(docs.invocation_id);
    expect(capture.artifacts.find((a) => a.invocation_id === docs.invocation_id)?.status).toBe('forgotten');
    for (const a of capture.artifacts.filter((x) => x.invocation_id && forgotten.includes(x.invocation_id)))
      expect(a.status, JSON.stringify(a)).toBe('forgotten');
    expect(await history()).toEqual(kept);
    expect(outputRecordFiles(replay.project, forgotten)).toEqual(outputsBefore);
    expect((await replay.json<{ forget: unknown[] }>(['forget', '--keep-last', '1', '--dry-run', '--json'])).forget).toEqual([]);
    expect((await replay.cli(['verify'])).exitCode).toBe(0);
  });

  it('a pull into a new store carries the forget: it verifies, with the same history', async () => {
    const history = async (store?: string): Promise<string[]> =>
      (await replay.json<{ invocation_id: string }[]>(['history', '--json', '--limit', '100', ...(store ? ['--store', store] : [])]))
        .map((r) => r.invocation_id)
        .sort();
    const fresh = path.join(replay.workDir, 'pulled');
    const pulled = await replay.cli(['pull', path.join(replay.project, '.dbtattic'), '--store', fresh]);
    expect(pulled.exitCode, pulled.stderr).toBe(0);
    expect(pulled.stderr).toMatch(/1 forget\(s\) made there too/);
    const verified = await replay.cli(['verify', '--store', fresh]);
    expect(verified.exitCode, verified.stdout).toBe(0);
    expect(await history(fresh)).toEqual(await history());
  });
});

/** The output records the archive holds for `ids`, by path. */
function outputRecordFiles(project: string, ids: string[]): string[] {
  const root = path.join(project, '.dbtattic', 'archive', 'records', 'outputs');
  return ids
    .flatMap((id) => {
      try {
        return readdirSync(path.join(root, id)).map((f) => `${id}/${f}`);
      } catch {
        return [];
      }
    })
    .sort();
}
