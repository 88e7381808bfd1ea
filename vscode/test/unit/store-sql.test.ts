import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../../../test/helpers/artifact-facts.js';
import { BIN } from '../../../test/helpers/cli.js';
import { startReplay, type ReplayedHistory } from '../../../test/helpers/replay.js';
import { AtticClient, type Row } from '../../src/cli/attic-client.js';
import { lastSuccessSql, NODE_FILE_STATS } from '../../src/cli/store-sql.js';
import { serialCliRunner } from '../../src/cli/run-cli.js';

/**
 * The extension's own questions to the store (the CodeLens figures, the last successful build),
 * answered through the CLI on the replayed fixture history and checked against the artifacts'
 * JSON: each step's run_results.json and manifest.json.
 */
let replay: ReplayedHistory;
let client: AtticClient;
beforeAll(() => {
  replay = startReplay();
  for (const step of replay.steps) replay.replayStep(step);
  client = new AtticClient(serialCliRunner({ executable: BIN, cwd: replay.project }), BIN);
}, 300_000);
afterAll(() => replay?.remove());

/** Every build of `uniqueId` in the history, oldest first, read from the steps' artifacts. */
function buildsOf(uniqueId: string): { invocationId: string; status: string; seconds: number; manifest: Json | null }[] {
  // dbt's executing commands; compile and docs generate write results without building.
  const building = /^(build|run|seed|snapshot|test)\b/;
  return replay.steps.flatMap((step) => {
    const results = replay.artifactOf(step, 'run_results.json');
    if (!results || !building.test(step.command.replace(/^dbt /, ''))) return [];
    const result = (results.results as Json[]).find((r) => r.unique_id === uniqueId);
    return result
      ? [
          {
            invocationId: step.invocation_id,
            status: String(result.status),
            seconds: Number(result.execution_time),
            manifest: replay.artifactOf(step, 'manifest.json'),
          },
        ]
      : [];
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function rows(sql: string): Promise<Row[]> {
  const answer = await client.query(sql);
  if (!answer.ok) throw new Error(answer.problem.message);
  return answer.value;
}

describe('the CodeLens figures (NODE_FILE_STATS)', () => {
  it('every model: its file, the status of its last build and its median runtime, as the run results say', async () => {
    const stats = (await rows(NODE_FILE_STATS)).filter((row) => row.resource_type === 'model');
    expect(stats.length).toBeGreaterThan(3);
    for (const row of stats) {
      const builds = buildsOf(String(row.unique_id));
      const completed = builds.filter((b) => ['success', 'pass', 'warn', 'fail'].includes(b.status));
      expect(String(row.path)).toMatch(new RegExp(`^models/.*${String(row.name)}\\.sql$`));
      expect(row.last_status, String(row.unique_id)).toBe(builds.at(-1)?.status);
      expect(Number(row.median_s)).toBeCloseTo(median(completed.map((b) => b.seconds)), 6);
    }
  });
});

describe('the last successful build (lastSuccessSql)', () => {
  it('is the newest build where the model succeeded (it failed in an earlier one), with its code then', async () => {
    const uniqueId = 'model.attic_shop.order_totals';
    const builds = buildsOf(uniqueId);
    expect(builds.some((b) => b.status === 'error')).toBe(true);
    const success = builds.filter((b) => b.status === 'success').at(-1)!;
    const nodes = success.manifest!.nodes as Record<string, Json>;
    const [row] = await rows(lastSuccessSql(uniqueId));
    expect(row?.invocation_id).toBe(success.invocationId);
    expect(row?.raw_code).toBe(nodes[uniqueId]!.raw_code);
  });
});
