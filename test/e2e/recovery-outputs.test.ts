import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveDirOf, sha256Of } from '../helpers/archive-files.js';
import { onlyOutput, readOutputRecordFiles, restoreBlob, restoreTree } from '../helpers/archive-outputs.js';
import { startReplay, type ReplayedHistory } from '../helpers/replay.js';

/**
 * Issue 9 items 1-2 for outputs (SQL trees, dbt.log slices): a damaged tree or output record
 * leaves out only itself. The fixture history is replayed through `dbtattic run` (which captures
 * outputs), then the test damages the archive by hand and checks each answer against what it
 * reads from the archive's files itself.
 */
describe('damaged outputs leave the rest of the history working', () => {
  let replay: ReplayedHistory;
  let archive: string;
  const ids: string[] = [];
  const fanned = (kind: 'files', id: string): string => path.join(archive, kind, id.slice(0, 2), id.slice(2));

  beforeAll(() => {
    replay = startReplay();
    for (const n of [1, 4]) {
      const step = replay.step(n);
      expect(replay.replayStep(step).exitCode).toBe(step.exit_code);
      ids.push(step.invocation_id);
    }
    archive = archiveDirOf(replay.project);
  }, 120_000);
  afterAll(() => replay?.remove());

  it('a damaged SQL tree and a damaged log record: rebuild and reading commands serve the rest, list both in ingest_problem, exit 1', async () => {
    const [first, second] = ids as [string, string];
    const intactTree = restoreTree(archive, onlyOutput(readOutputRecordFiles(archive, first), 'sql').sha256);
    const damagedTree = onlyOutput(readOutputRecordFiles(archive, second), 'sql').sha256;
    writeFileSync(fanned('files', damagedTree), 'not gzip');
    const logDir = path.join(archive, 'records', 'outputs', encodeURIComponent(first));
    const logRecord = readdirSync(logDir).find((name) => name.startsWith('log-'))!;
    writeFileSync(path.join(logDir, logRecord), '{"kind": "output", "trunc');

    const rebuild = await replay.cli(['rebuild', '--json']);
    expect(rebuild.exitCode, rebuild.stderr).toBe(1);
    const problems = (JSON.parse(rebuild.stdout) as { problems: Record<string, unknown>[] }).problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ invocation_id: second, artifact_type: 'sql', object_id: damagedTree, kind: 'damaged', archive_key: null }),
        expect.objectContaining({
          invocation_id: first,
          artifact_type: 'log',
          kind: 'damaged',
          archive_key: `records/outputs/${encodeURIComponent(first)}/${logRecord}`,
        }),
      ]),
    );
    expect(problems).toHaveLength(2);

    const history = await replay.cli(['history', '--json']);
    expect(history.exitCode, history.stderr).toBe(1);
    expect((JSON.parse(history.stdout) as { invocation_id: string }[]).map((r) => r.invocation_id).sort()).toEqual([...ids].sort());
    expect(history.stderr).toContain(`left out of this answer: ${[first, second].sort().join(', ')}`);

    // The intact tree is still served file for file; the damaged one gives no rows, not wrong ones.
    const sql = `select invocation_id, count(*) as n from node_sql group by 1 order by 1`;
    const query = await replay.cli(['query', '--json', sql]);
    expect(query.exitCode, query.stderr).toBe(1);
    const sqlFiles = [...intactTree.keys()].filter((p) => p.startsWith('compiled/') || p.startsWith('run/')).length;
    expect(JSON.parse(query.stdout)).toEqual([{ invocation_id: first, n: sqlFiles }]);
    expect((await replay.cli(['verify'])).exitCode).toBe(4);
    expect(existsSync(fanned('files', damagedTree))).toBe(true);
  }, 120_000);

  it('verify --repair restores a SQL file of a tree from its intact copy in target/', async () => {
    // The first test damaged this invocation's log record: its SQL tree is found by its record's name.
    const sqlRecord = readdirSync(path.join(archive, 'records', 'outputs', encodeURIComponent(ids[0]!))).find((name) => name.startsWith('sql-'))!;
    const tree = restoreTree(archive, sqlRecord.slice('sql-'.length, -'.json'.length));
    const target = path.join(replay.project, 'target');
    const [rel, id] = [...tree].find(([p, blob]) => existsSync(path.join(target, p)) && sha256Of(path.join(target, p)) === blob)!;
    rmSync(fanned('files', id));
    const broken = await replay.cli(['verify', '--json']);
    expect(broken.exitCode).toBe(4);
    expect(broken.stdout).toContain(id);
    const repair = await replay.cli(['verify', '--repair', '--json']);
    const report = JSON.parse(repair.stdout) as { restored: { files: number }; problems: { key: string; message: string }[] };
    expect(report.restored.files, rel).toBe(1);
    expect(JSON.stringify(report.problems)).not.toContain(id);
    expect(readFileSync(path.join(target, rel)).equals(restoreBlob(archive, id))).toBe(true);
  }, 120_000);
});
