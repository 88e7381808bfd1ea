import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyNodeRows, editNodeRows } from '../../helpers/node-rows.js';
import { buildFixtureStore, type FixtureStore } from './fixture-store.js';

/**
 * Each rule README states for the runtime and test views, at its edges: the flaky window of 10
 * runs and its parents condition, p95, trend_ratio over the 10 runs before the last, the
 * regression thresholds and the commands left out of executions. Invocations are copies of the
 * fixture's last step (same manifest) made hours later, with run results written for the test;
 * they come from no dbt run, and each test's edits are rolled back. Expected values are worked
 * out here from the numbers put in.
 */
let fx: FixtureStore;
beforeAll(async () => {
  fx = await buildFixtureStore();
});
afterAll(() => fx?.close());

const TEST = 'test.attic_shop.not_null_orders_status_group.98665510ab';
const TESTED_MODEL = 'model.attic_shop.orders';
const TEMPLATE_RESULT = 'model.attic_shop.customers';

const lastStep = (): string => fx.steps.at(-1)!.invocation_id;

async function run(sql: string, params: (string | number)[] = []): Promise<void> {
  await fx.db.connection.run(sql, params);
}

/** A new invocation `hours` after the fixture's last, with its manifest, run by `command`. */
async function invocationAt(id: string, hours: number, command = 'build'): Promise<void> {
  const params = [lastStep(), id, hours, command];
  await run(
    `INSERT INTO invocation SELECT * REPLACE ($2::VARCHAR AS invocation_id, $4::VARCHAR AS command,
    generated_at + to_hours($3::BIGINT) AS generated_at, started_at + to_hours($3::BIGINT) AS started_at,
    completed_at + to_hours($3::BIGINT) AS completed_at) FROM invocation WHERE invocation_id = $1`,
    params,
  );
  await run('INSERT INTO macro_invocation SELECT * REPLACE ($2::VARCHAR AS invocation_id) FROM macro_invocation WHERE invocation_id = $1', [lastStep(), id]);
  await copyNodeRows(fx.db.connection, lastStep(), id);
}

/** A run result of `uniqueId` in invocation `id` (other columns as one of the last step's results). */
async function result(id: string, uniqueId: string, status: string, seconds = 0.5): Promise<void> {
  await run(
    `INSERT INTO run_result_pending SELECT * REPLACE ($2::VARCHAR AS invocation_id, $3::VARCHAR AS unique_id, $4::VARCHAR AS status,
    $5::DOUBLE AS execution_time) FROM run_result WHERE invocation_id = $1 AND unique_id = $6`,
    [lastStep(), id, uniqueId, status, seconds, TEMPLATE_RESULT],
  );
}

/**
 * Makes `uniqueId` a model of the last step's manifest (a copy of the template's definition),
 * so invocations copied from it have it too: regressions are of nodes the project still has.
 */
async function inLastManifest(uniqueId: string): Promise<void> {
  const id = `version-of-${uniqueId}`;
  if ((await fx.query('SELECT 1 FROM node_version WHERE node_version_id = $1', [id])).length > 0) return;
  await run(
    `INSERT INTO node_version SELECT * REPLACE ($2::VARCHAR AS node_version_id, $3::VARCHAR AS unique_id, split_part($3, '.', 3) AS name)
    FROM node_version WHERE node_version_id = (SELECT node_version_id FROM node_invocation WHERE invocation_id = $1 AND unique_id = $4)`,
    [lastStep(), id, uniqueId, TEMPLATE_RESULT],
  );
  await editNodeRows(
    fx.db.connection,
    lastStep(),
    `INSERT INTO edited_node SELECT * REPLACE ($1::VARCHAR AS node_version_id, $2::VARCHAR AS unique_id, NULL::VARCHAR AS macro_set_id)
    FROM edited_node WHERE unique_id = $3`,
    [id, uniqueId, TEMPLATE_RESULT],
  );
}

/** Runs of `uniqueId` taking `seconds`, oldest first, one invocation per hour from hour `from`. */
async function timedRuns(uniqueId: string, seconds: number[], from = 1): Promise<void> {
  await inLastManifest(uniqueId);
  for (const [i, s] of seconds.entries()) {
    const id = `h${String(from + i).padStart(3, '0')}`;
    const exists = await fx.query('SELECT 1 FROM invocation WHERE invocation_id = $1', [id]);
    if (exists.length === 0) await invocationAt(id, from + i);
    await result(id, uniqueId, 'success', s);
  }
}

async function flaky(): Promise<unknown> {
  const rows = await fx.query('SELECT flaky FROM v_test_history WHERE unique_id = $1', [TEST]);
  return rows[0]?.flaky;
}

/** A failure an hour after the fixture's last run, then `passes` passing runs, then `after` (a skipped run, say). */
async function failThenPass(passes: number, after?: string): Promise<unknown> {
  return fx.withEdits(async () => {
    await invocationAt('fail', 1);
    await result('fail', TEST, 'fail');
    for (let h = 2; h < 2 + passes; h++) {
      await invocationAt(`pass-${h}`, h);
      await result(`pass-${h}`, TEST, 'pass');
    }
    if (after) {
      await invocationAt('after', 2 + passes);
      await result('after', TEST, after);
    }
    return flaky();
  });
}

describe('v_test_history: flaky means passed and failed within the last 10 runs, definitions unchanged', () => {
  it('holds a failure 10 runs back', async () => {
    expect(await failThenPass(9)).toBe(true);
  });

  it('lets go of a failure 11 runs back', async () => {
    expect(await failThenPass(10)).toBe(false);
  });

  it('does not count skipped results as runs of the window', async () => {
    expect(await failThenPass(9, 'skipped')).toBe(true);
  });

  it.each([
    ['the model it tests', TESTED_MODEL],
    ['the test itself', TEST],
  ])('is not flaky when %s had another fingerprint in the failing run', async (_what, changed) => {
    const answer = await fx.withEdits(async () => {
      await invocationAt('fail', 1);
      await editNodeRows(fx.db.connection, 'fail', "UPDATE edited_node SET fingerprint = 'edited-' || fingerprint WHERE unique_id = $1", [changed]);
      await result('fail', TEST, 'fail');
      return flaky();
    });
    expect(answer).toBe(false);
  });

  it('is flaky when only a model further upstream changed (those are not held fixed)', async () => {
    const upstream = (
      await fx.query("SELECT depends_on_id FROM node_depends_on WHERE invocation_id = $1 AND unique_id = $2 AND kind = 'node'", [lastStep(), TESTED_MODEL])
    ).map((r) => String(r.depends_on_id));
    expect(upstream.length).toBeGreaterThan(0);
    const answer = await fx.withEdits(async () => {
      await invocationAt('fail', 1);
      await editNodeRows(fx.db.connection, 'fail', "UPDATE edited_node SET fingerprint = 'edited-' || fingerprint WHERE unique_id = $1", [upstream[0]!]);
      await result('fail', TEST, 'fail');
      return flaky();
    });
    expect(answer).toBe(true);
  });
});

/** DuckDB's quantile_cont: linear interpolation between the two nearest ranks. */
function quantileCont(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low]! + (at - low) * ((sorted[Math.min(low + 1, sorted.length - 1)] ?? 0) - sorted[low]!);
}

function medianOf(values: number[]): number {
  return quantileCont(values, 0.5);
}

const TIMED = 'model.attic_shop.timed';

describe('v_node_runtime', () => {
  it('gives p95 as the 95th percentile of every completed execution, interpolated', async () => {
    const seconds = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 40];
    const row = await fx.withEdits(async () => {
      await timedRuns(TIMED, seconds);
      return (await fx.query('SELECT runs, median_s, p95_s FROM v_node_runtime WHERE unique_id = $1', [TIMED]))[0];
    });
    expect(quantileCont(seconds, 0.95)).toBeCloseTo(9 + 0.05 * 31, 9);
    expect(row).toEqual({ runs: 20, median_s: medianOf(seconds), p95_s: expect.closeTo(quantileCont(seconds, 0.95), 9) });
  });

  it('gives trend_ratio as the last run over the median of the 10 runs before it', async () => {
    // Oldest first: two slow runs that fall outside the baseline, ten runs of 1–10 s, the last.
    const seconds = [50, 50, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 22];
    const row = await fx.withEdits(async () => {
      await timedRuns(TIMED, seconds);
      return (await fx.query('SELECT runs, last_s, baseline_runs, baseline_median_s, trend_ratio FROM v_node_runtime WHERE unique_id = $1', [TIMED]))[0];
    });
    expect(row).toEqual({ runs: 13, last_s: 22, baseline_runs: 10, baseline_median_s: 5.5, trend_ratio: 4 });
  });

  it('has no trend_ratio for a node run once', async () => {
    const row = await fx.withEdits(async () => {
      await timedRuns(TIMED, [2]);
      return (await fx.query('SELECT runs, baseline_runs, trend_ratio FROM v_node_runtime WHERE unique_id = $1', [TIMED]))[0];
    });
    expect(row).toEqual({ runs: 1, baseline_runs: 0, trend_ratio: null });
  });

  it.each([['compile'], ['docs generate'], ['show'], ['clone']])('leaves out results of `%s`, and results that did not complete', async (command) => {
    const row = await fx.withEdits(async () => {
      await timedRuns(TIMED, [2, 4]);
      await invocationAt('excluded', 3, command);
      await result('excluded', TIMED, 'success', 100);
      await invocationAt('errored', 4);
      await result('errored', TIMED, 'error', 100);
      return (await fx.query('SELECT runs, last_s, median_s FROM v_node_runtime WHERE unique_id = $1', [TIMED]))[0];
    });
    expect(row).toEqual({ runs: 2, last_s: 4, median_s: 3 });
  });
});

describe('v_test_history leaves out results of compile, docs generate, show and clone', () => {
  it.each([['compile'], ['docs generate'], ['show'], ['clone']])('`%s`', async (command) => {
    const before = (await fx.query('SELECT runs, fails, last_status FROM v_test_history WHERE unique_id = $1', [TEST]))[0];
    const after = await fx.withEdits(async () => {
      await invocationAt('excluded', 1, command);
      await result('excluded', TEST, 'fail');
      return (await fx.query('SELECT runs, fails, last_status FROM v_test_history WHERE unique_id = $1', [TEST]))[0];
    });
    expect(after).toEqual(before);
  });
});

describe('v_runtime_regressions: last run > 1.5 × baseline median, > 1 s slower, ≥ 3 runs before', () => {
  const cases: [string, number[], boolean][] = [
    ['3 runs before, 2.5× and 1.5 s slower', [1, 1, 1, 2.5], true],
    ['only 2 runs before', [1, 1, 10], false],
    ['exactly 1.5× the baseline', [4, 4, 4, 6], false],
    ['just over 1.5× the baseline', [4, 4, 4, 6.01], true],
    ['exactly 1 s slower', [1, 1, 1, 2], false],
    ['just over 1 s slower', [1, 1, 1, 2.01], true],
    ['faster than before', [10, 10, 10, 1], false],
  ];
  it.each(cases)('%s', async (_label, seconds, regressed) => {
    const rows = await fx.withEdits(async () => {
      await timedRuns(TIMED, seconds);
      return fx.query('SELECT unique_id, last_s, baseline_median_s, baseline_runs, trend_ratio, added_s FROM v_runtime_regressions WHERE unique_id = $1', [
        TIMED,
      ]);
    });
    const before = seconds.slice(0, -1);
    const last = seconds.at(-1)!;
    const expected = {
      unique_id: TIMED,
      last_s: last,
      baseline_median_s: medianOf(before),
      baseline_runs: before.length,
      trend_ratio: last / medianOf(before),
      added_s: last - medianOf(before),
    };
    expect(rows).toEqual(regressed ? [expected] : []);
  });

  /** A manifest `hours` after the last step's, on `branch` and `target`, without `uniqueId`: the model was deleted. */
  async function deletedAt(hours: number, uniqueId: string, branch: string, target: string | null): Promise<void> {
    const id = `deleted-${hours}`;
    await invocationAt(id, hours, 'parse');
    await run(
      `UPDATE invocation SET branch = $2, target = ${target === null ? 'NULL' : '$3'} WHERE invocation_id = $1`,
      target === null ? [id, branch] : [id, branch, target],
    );
    await editNodeRows(fx.db.connection, id, 'DELETE FROM edited_node WHERE unique_id = $1', [uniqueId]);
  }

  const lastRun = async (): Promise<{ branch: string; target: string }> => {
    const row = (await fx.query('SELECT branch, target FROM invocation WHERE invocation_id = $1', [lastStep()]))[0]!;
    return { branch: String(row.branch), target: String(row.target) };
  };

  it.each([
    ['a later manifest of its branch and target does not have it', (b: string, t: string) => [b, t], []],
    ['a later parse of its branch (target unknown) does not have it', (b: string) => [b, null], []],
    ["only another branch's later manifest lacks it", (_b: string, t: string) => ['elsewhere', t], [TIMED]],
    ["only another target's later manifest lacks it", (b: string) => [b, 'other-target'], [TIMED]],
  ] as [string, (b: string, t: string) => [string, string | null], string[]][])(
    'lists a regressed model only while the project has it: %s',
    async (_label, where, expected) => {
      const rows = await fx.withEdits(async () => {
        await timedRuns(TIMED, [1, 1, 1, 2.5]);
        const { branch, target } = await lastRun();
        const [b, t] = where(branch, target);
        await deletedAt(10, TIMED, b, t);
        return fx.query('SELECT unique_id FROM v_runtime_regressions');
      });
      expect(rows.map((r) => r.unique_id)).toEqual(expected);
    },
  );

  it.each([
    ['regression_ratio', 2, [4, 4, 4, 7], false],
    ['regression_ratio', 1.2, [4, 4, 4, 5.5], true],
    ['regression_floor_s', 0, [0.2, 0.2, 0.2, 0.4], true],
    ['regression_floor_s', 3, [1, 1, 1, 3.5], false],
    ['regression_min_runs', 2, [1, 1, 10], true],
    ['regression_min_runs', 5, [1, 1, 1, 1, 10], false],
  ] as [string, number, number[], boolean][])('SET VARIABLE %s = %s changes the answer for %j to %s', async (variable, value, seconds, regressed) => {
    const rows = await fx.withEdits(async () => {
      await timedRuns(TIMED, seconds);
      await run(`SET VARIABLE ${variable} = ${value}`);
      try {
        return await fx.query('SELECT unique_id FROM v_runtime_regressions WHERE unique_id = $1', [TIMED]);
      } finally {
        await run(`RESET VARIABLE ${variable}`);
      }
    });
    expect(rows.length).toBe(regressed ? 1 : 0);
  });
});
