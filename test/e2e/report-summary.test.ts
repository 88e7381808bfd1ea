import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countStatuses, resultStatuses, type Json } from '../helpers/artifact-facts.js';
import { replayedHistory, type ReplayedHistory } from '../helpers/replay.js';

/**
 * Issue 44 items 12 and 13: the pull-request summary says what ran and what each change reaches
 * downstream, checked against the fixture history's JSON (run_results' statuses; the manifest's
 * own child_map, which our lineage is not read from); and it says so when both sides are one run.
 */
let replay: ReplayedHistory;
beforeAll(async () => {
  replay = await replayedHistory();
}, 180_000);
afterAll(() => replay?.remove());

const idOf = (n: number): string => replay.step(n).invocation_id;

/** Every node below `id` by the manifest's child_map. */
function below(manifest: Json, id: string): Set<string> {
  const childMap = manifest.child_map as Record<string, string[]>;
  const seen = new Set<string>();
  const queue = [...(childMap[id] ?? [])];
  while (queue.length) {
    const next = queue.shift()!;
    if (seen.has(next)) continue;
    seen.add(next);
    queue.push(...(childMap[next] ?? []));
  }
  return seen;
}

describe('report --format markdown, what ran and what the changes reach', () => {
  it("counts the later run's results by status and each changed node's downstream as dbt's child_map has them", async () => {
    const result = await replay.cli(['report', '--format', 'markdown', '--from', idOf(4), '--to', idOf(5)]);
    expect(result.exitCode, result.stderr).toBe(0);
    const counts = countStatuses(resultStatuses(replay.artifactOf(replay.step(5), 'run_results.json')!));
    const ran = Object.entries(counts)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([s, n]) => `${n} \`${s}\``)
      .join(', ');
    expect(result.stdout).toContain(`**Ran**: ${ran}.`);

    const manifest = replay.artifactOf(replay.step(5), 'manifest.json')!;
    const listed = [...result.stdout.matchAll(/^- `([^`]+)`: (\w+)(?:; downstream (\d+): (.*))?$/gm)];
    expect(listed.length).toBeGreaterThan(0);
    const reached = new Set<string>();
    let some = 0;
    for (const [, id, change, count] of listed) {
      if (change === 'removed') continue;
      const expected = below(manifest, id!);
      expected.forEach((n) => reached.add(n));
      expect(Number(count ?? 0), id).toBe(expected.size);
      if (expected.size > 0) some += 1;
    }
    expect(some).toBeGreaterThan(0);
    expect(result.stdout).toContain(`**Downstream**: ${reached.size} node${reached.size === 1 ? '' : 's'} below the changes`);
  });

  it('says when the earlier and the later run are one run (--from @main on main)', async () => {
    const result = await replay.cli(['report', '--format', 'markdown', '--from', '@main']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain('**Note**: the earlier and the later run are the same run');
    const plain = await replay.cli(['report', '--format', 'markdown']);
    expect(plain.stdout).not.toContain('**Note**');
  });
});
