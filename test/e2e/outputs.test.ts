import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Step, StepDefinition } from '../../fixtures/generate.mjs';
import { archiveDirOf } from '../helpers/archive-files.js';
import { onlyOutput, readOutputRecordFiles, restoreBlob, restoreTree } from '../helpers/archive-outputs.js';
import { readJson } from '../helpers/artifact-facts.js';
import { startReplay, type ReplayedHistory } from '../helpers/replay.js';
import { runCli, runCliProcess } from '../helpers/cli.js';

/** The SQL files a step's dbt command wrote, from its manifest: every compiled_path and build_path. */
function sqlWrittenBy(replay: ReplayedHistory, step: Step): Map<string, Buffer> {
  const manifest = readJson(path.join(replay.history, step.dir, 'target', 'manifest.json')) as { nodes: Record<string, Record<string, unknown>> };
  const out = new Map<string, Buffer>();
  for (const node of Object.values(manifest.nodes)) {
    for (const rel of [node.compiled_path, node.build_path]) {
      if (typeof rel === 'string')
        out.set(rel.replace(/^target\//, ''), readFileSync(path.join(replay.history, step.dir, 'target', rel.replace(/^target\//, ''))));
    }
  }
  return out;
}

describe('compiled SQL, run SQL and dbt.log are captured per invocation', () => {
  let replay: ReplayedHistory;
  let logCopies: string;
  const replayed: Step[] = [];

  beforeAll(() => {
    replay = startReplay();
    logCopies = mkdtempSync(path.join(os.tmpdir(), 'attic-logs-'));
    // A small rotation size: each invocation's log straddles several rotated files.
    const env = { FAKE_DBT_LOG_COPY: logCopies, DBT_LOG_FILE_MAX_BYTES: '4096' };
    for (const [n, format] of [
      [1, 'debug'],
      [4, 'json'],
      [5, 'debug'],
      [10, 'debug'],
    ] as const) {
      const step = replay.step(n);
      const result = replay.replayStep(step, [], { ...env, DBT_LOG_FORMAT_FILE: format });
      expect(result.exitCode, result.stderr).toBe(step.exit_code);
      replayed.push(step);
    }
  }, 120_000);
  afterAll(() => replay?.remove());

  it("restores each invocation's SQL byte for byte, and only the files it wrote", async () => {
    const archive = archiveDirOf(replay.project);
    for (const step of replayed) {
      const expected = sqlWrittenBy(replay, step);
      const tree = restoreTree(archive, onlyOutput(readOutputRecordFiles(archive, step.invocation_id), 'sql').sha256);
      expect([...tree.keys()].sort(), step.slug).toEqual([...expected.keys()].sort());
      for (const [rel, bytes] of expected) expect(restoreBlob(archive, tree.get(rel)!).equals(bytes), rel).toBe(true);
    }
  });

  it('leaves out a file an older invocation wrote, though it is still in target/', async () => {
    const archive = archiveDirOf(replay.project);
    const step5 = replay.step(5);
    // Step 05 skips customers: its compiled file on disk is step 01's.
    const stale = 'compiled/attic_shop/models/marts/customers.sql';
    expect(existsSync(path.join(replay.project, 'target', stale))).toBe(true);
    expect(sqlWrittenBy(replay, step5).has(stale)).toBe(false);
    const tree = restoreTree(archive, onlyOutput(readOutputRecordFiles(archive, step5.invocation_id), 'sql').sha256);
    expect(tree.has(stale)).toBe(false);
  });

  it("restores each invocation's slice of the rotating dbt.log byte for byte, text and JSON alike", async () => {
    const archive = archiveDirOf(replay.project);
    const logs = readdirSync(path.join(replay.project, 'logs'));
    expect(logs).toContain('dbt.log.1');
    for (const step of replayed) {
      const written = readFileSync(path.join(logCopies, `${step.invocation_id}.log`));
      const slice = restoreBlob(archive, onlyOutput(readOutputRecordFiles(archive, step.invocation_id), 'log').sha256);
      expect(slice.equals(written), step.slug).toBe(true);
    }
    const json = readFileSync(path.join(logCopies, `${replay.step(4).invocation_id}.log`), 'utf8');
    expect(json.startsWith('{')).toBe(true);
  });

  it('show prints the SQL a failed model ran and its failure in the log', async () => {
    const step = replay.step(10);
    const results = readJson(path.join(replay.history, step.dir, 'target', 'run_results.json')) as {
      results: { unique_id: string; status: string; message: string | null }[];
    };
    const failed = results.results.find((r) => r.unique_id.startsWith('model.') && r.status === 'error')!;
    const shown = await replay.cli(['show', failed.unique_id, '--invocation', step.invocation_id]);
    expect(shown.exitCode, shown.stderr).toBe(0);
    const runSql = readFileSync(
      path.join(replay.history, step.dir, 'target', 'run', 'attic_shop', 'models', 'marts', `${failed.unique_id.split('.')[2]}.sql`),
      'utf8',
    );
    expect(shown.stdout).toContain(runSql);
    expect(shown.stdout).toContain(`Failure in ${failed.unique_id}`);
    expect(shown.stdout).toContain(failed.message!);
    const onlyRun = await replay.cli(['show', failed.unique_id, '--invocation', step.invocation_id, '--run']);
    expect(onlyRun.stdout).toBe(runSql);
  });

  it('files SQL in node_sql under the node whose compiled_path it is', async () => {
    const step = replay.step(1);
    const rows = await replay.json<{ unique_id: string | null; kind: string; path: string }[]>([
      'query',
      '--json',
      `SELECT unique_id, kind, path FROM node_sql WHERE invocation_id = '${step.invocation_id}' ORDER BY path`,
    ]);
    const manifest = readJson(path.join(replay.history, step.dir, 'target', 'manifest.json')) as { nodes: Record<string, Record<string, unknown>> };
    const expected = Object.entries(manifest.nodes).flatMap(([id, node]) => [
      ...(typeof node.compiled_path === 'string' ? [{ unique_id: id, kind: 'compiled', path: node.compiled_path.replace(/^target\//, '') }] : []),
      ...(typeof node.build_path === 'string' ? [{ unique_id: id, kind: 'run', path: node.build_path.replace(/^target\//, '') }] : []),
    ]);
    expect(rows).toEqual(expected.sort((a, b) => a.path.localeCompare(b.path)));
  });
});

describe('capture: {sql: false, logs: false}', () => {
  let replay: ReplayedHistory;
  beforeAll(() => {
    replay = startReplay();
    writeFileSync(path.join(replay.project, 'dbtattic.yml'), 'capture:\n  sql: false\n  logs: false\n');
  }, 60_000);
  afterAll(() => replay?.remove());

  it('keeps neither SQL nor logs', async () => {
    const step = replay.step(1);
    expect(replay.replayStep(step).exitCode).toBe(0);
    expect(existsSync(path.join(replay.project, 'target', 'compiled'))).toBe(true);
    expect(existsSync(path.join(replay.project, 'logs', 'dbt.log'))).toBe(true);
    expect(readOutputRecordFiles(archiveDirOf(replay.project), step.invocation_id)).toEqual([]);
  });
});

describe('a dbt command that crashed while writing its manifest', () => {
  let replay: ReplayedHistory;
  beforeAll(() => {
    replay = startReplay();
  }, 60_000);
  afterAll(() => replay?.remove());

  it("leaves the SQL it wrote out of the invocation before it, in the run's capture and in every capture after", async () => {
    const step = replay.step(1);
    expect(replay.replayStep(step).exitCode).toBe(0);
    const archive = archiveDirOf(replay.project);
    const written = sqlWrittenBy(replay, step);
    const customers = 'compiled/attic_shop/models/marts/customers.sql';
    expect(written.has(customers)).toBe(true);
    // As dbt would leave it killed mid-write: new SQL, a manifest cut short after its header.
    const crash = `echo 'select 999 as crashed' > target/${customers}; head -c 4000 target/manifest.json > m; mv m target/manifest.json; exit 2`;
    expect((await runCliProcess(['run', '--', 'sh', '-c', crash], { cwd: replay.project })).exitCode).toBe(2);
    rmSync(path.join(replay.project, 'target', 'manifest.json'));
    expect((await runCli(['capture'], { cwd: replay.project })).exitCode).toBe(0);
    const records = readOutputRecordFiles(archive, step.invocation_id).filter((r) => r.output === 'sql');
    expect(records).toHaveLength(1);
    const tree = restoreTree(archive, records[0]!.sha256);
    expect(restoreBlob(archive, tree.get(customers)!).equals(written.get(customers)!)).toBe(true);
  });
});

describe('a var changed between two runs', () => {
  const PAYMENTS = 'models/staging/stg_payments.sql';
  const stepDefs: StepDefinition[] = [
    {
      step: 1,
      slug: 'build-usd',
      command: 'dbt build',
      kind: 'invocation',
      which: 'build',
      select: [],
      description: 'payments labelled with a var',
      edits: [
        { file: PAYMENTS, replace: ['    payments.payment_method,', '    payments.payment_method,\n    \'{{ var("currency") }}\' as currency,'] },
        { file: 'dbt_project.yml', replace: ['clean-targets:', 'vars:\n  currency: USD\n\nclean-targets:'] },
      ],
    },
    {
      step: 2,
      slug: 'build-eur',
      command: 'dbt build',
      kind: 'invocation',
      which: 'build',
      select: [],
      description: 'the var changes, the code does not',
      edits: [{ file: 'dbt_project.yml', replace: ['currency: USD', 'currency: EUR'] }],
    },
  ];
  let replay: ReplayedHistory;
  beforeAll(() => {
    replay = startReplay(stepDefs);
    for (const step of replay.steps) expect(replay.replayStep(step).exitCode).toBe(step.exit_code);
  }, 60_000);
  afterAll(() => replay?.remove());

  it('shows as compiled in v_node_changes for exactly the nodes whose compiled SQL it changed', async () => {
    const [first, second] = replay.steps as [Step, Step];
    const compiled = (step: Step): Map<string, unknown> => {
      const manifest = readJson(path.join(replay.history, step.dir, 'target', 'manifest.json')) as { nodes: Record<string, Record<string, unknown>> };
      return new Map(Object.entries(manifest.nodes).map(([id, n]) => [id, n.compiled_code]));
    };
    const before = compiled(first);
    const affected = [...compiled(second)]
      .filter(([id, code]) => code !== undefined && before.get(id) !== undefined && code !== before.get(id))
      .map(([id]) => id);
    expect(affected).toEqual(['model.attic_shop.stg_payments']);
    const rows = await replay.json<{ unique_id: string; change_kind: string }[]>([
      'query',
      '--json',
      `SELECT unique_id, change_kind FROM v_node_changes WHERE to_invocation = '${second.invocation_id}' ORDER BY unique_id`,
    ]);
    expect(rows).toEqual(affected.map((unique_id) => ({ unique_id, change_kind: 'compiled' })));
    const diff = await replay.json<{ nodes: { unique_id: string; change: string }[] }>(['diff', first.invocation_id, second.invocation_id, '--json']);
    expect(diff.nodes.map((n) => [n.unique_id, n.change])).toEqual(affected.map((id) => [id, 'compiled']));
  });
});
