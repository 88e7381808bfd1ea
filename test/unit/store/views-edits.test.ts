import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Step } from '../../../fixtures/generate.mjs';
import { refreshNodeChanges } from '../../../src/store/derived/node-changes.js';
import { copyNodeRows, editNodeRows } from '../../helpers/node-rows.js';
import { buildFixtureStore, completedByNode, median, type FixtureStore } from './fixture-store.js';

/**
 * What the fixture history never does (a docs-only edit, a node that disappears, a test that
 * flaps, a slow run, a source going stale), made by editing the store's rows inside a
 * transaction that is rolled back after each test. These rows are constructed for the test and
 * come from no dbt run; they exercise the views' rules, not the extractor.
 */
let fx: FixtureStore;
beforeAll(async () => {
  fx = await buildFixtureStore();
});
afterAll(() => fx?.close());

const CUSTOMERS = 'model.attic_shop.customers';
const STATUS_GROUP_TEST = 'test.attic_shop.not_null_orders_status_group.98665510ab';

function step(n: number): Step {
  return fx.steps.find((s) => s.step === n)!;
}

async function run(sql: string, params: string[] = []): Promise<void> {
  await fx.db.connection.run(sql, params);
}

/** Gives `uniqueId` in an invocation's manifest a new version: its current one with `replace` applied (SQL REPLACE items). */
async function editNode(invocationId: string, uniqueId: string, replace: string): Promise<void> {
  const params = [invocationId, uniqueId];
  await run(
    `INSERT INTO node_version SELECT * REPLACE ('edited-' || node_version_id AS node_version_id, ${replace}) FROM node_version
    WHERE node_version_id = (SELECT node_version_id FROM node_invocation WHERE invocation_id = $1 AND unique_id = $2)`,
    params,
  );
  // The new version keeps the edges of the one it replaces (node edges belong to a version).
  await run(
    `INSERT INTO node_version_edge SELECT 'edited-' || node_version_id, depends_on_id FROM node_version_edge
    WHERE node_version_id = (SELECT node_version_id FROM node_invocation WHERE invocation_id = $1 AND unique_id = $2)`,
    params,
  );
  await editNodeRows(fx.db.connection, invocationId, "UPDATE edited_node SET node_version_id = 'edited-' || node_version_id WHERE unique_id = $1", [uniqueId]);
}

/** A new invocation an hour after step n, with the same manifest. */
async function repeatInvocation(n: number, id: string): Promise<void> {
  const params = [step(n).invocation_id, id];
  await run(
    `INSERT INTO invocation SELECT * REPLACE ($2::VARCHAR AS invocation_id, generated_at + INTERVAL 1 HOUR AS generated_at,
    started_at + INTERVAL 1 HOUR AS started_at, completed_at + INTERVAL 1 HOUR AS completed_at) FROM invocation WHERE invocation_id = $1`,
    params,
  );
  await run('INSERT INTO macro_invocation SELECT * REPLACE ($2::VARCHAR AS invocation_id) FROM macro_invocation WHERE invocation_id = $1', params);
  await copyNodeRows(fx.db.connection, step(n).invocation_id, id);
}

async function refingerprint(n: number, uniqueId: string): Promise<void> {
  await editNodeRows(fx.db.connection, step(n).invocation_id, "UPDATE edited_node SET fingerprint = 'edited-' || fingerprint WHERE unique_id = $1", [uniqueId]);
}

/** v_node_changes after the edits: node_change derived again from the edited rows, as ingest would. */
async function changes(sql: string, params: string[]): Promise<Record<string, unknown>[]> {
  await refreshNodeChanges(
    fx.db.connection,
    fx.steps.map((s) => s.invocation_id),
  );
  return fx.query(sql, params);
}

async function changeAt(n: number, uniqueId: string): Promise<Record<string, unknown>[]> {
  return changes('SELECT change_kind, what_changed FROM v_node_changes WHERE unique_id = $1 AND to_invocation = $2', [uniqueId, step(n).invocation_id]);
}

describe('v_node_changes classifies a change by the aspects that differ', () => {
  const cases: [string, string | null, string[], string, boolean?][] = [
    ['the code, keeping its fingerprint', "raw_code || '\n-- a comment' AS raw_code", ['raw_code'], 'cosmetic'],
    ['the code and its fingerprint', "raw_code || ' where false' AS raw_code", ['raw_code', 'fingerprint'], 'semantic', true],
    ['only the fingerprint (a macro it reaches through another)', null, ['fingerprint'], 'semantic', true],
    [
      'the materialization and so the fingerprint',
      `'view' AS materialization, json_merge_patch(config, '{"materialized":"view"}') AS config`,
      ['fingerprint', 'materialization'],
      'config',
      true,
    ],
    ['a description', "'Edited.' AS description", ['description'], 'docs'],
    ['tags, which config repeats', `'["finance"]'::JSON AS tags, json_merge_patch(config, '{"tags":["finance"]}') AS config`, ['tags'], 'docs'],
    ['declared columns', `'{}'::JSON AS declared_columns, '{}'::JSON AS columns_compared`, ['columns'], 'docs'],
    [
      'the materialization, as configured',
      `'view' AS materialization, json_merge_patch(config, '{"materialized":"view"}') AS config, json_merge_patch(unrendered_config, '{"materialized":"view"}') AS unrendered_config`,
      ['materialization'],
      'config',
    ],
    [
      'another config key',
      `json_merge_patch(config, '{"full_refresh":true}') AS config, json_merge_patch(config_compared, '{"full_refresh":true}') AS config_compared`,
      ['config'],
      'config',
    ],
    ['the schema', `'elsewhere' AS schema_name, json_merge_patch(config, '{"schema":"elsewhere"}') AS config`, ['relation'], 'relation'],
    ['the schema and the description', `'elsewhere' AS schema_name, 'Edited.' AS description`, ['relation', 'description'], 'relation'],
    ['only the file path', `'models/moved/customers.sql' AS path`, ['other'], 'other'],
  ];
  for (const [what, replace, aspects, kind, newFingerprint] of cases) {
    it(`${what}: ${aspects.join(', ')} → ${kind}`, async () => {
      const rows = await fx.withEdits(async () => {
        if (replace) await editNode(step(12).invocation_id, CUSTOMERS, replace);
        if (newFingerprint) await refingerprint(12, CUSTOMERS);
        return changeAt(12, CUSTOMERS);
      });
      expect(rows).toEqual([{ change_kind: kind, what_changed: aspects }]);
    });
  }

  it('a node missing from one manifest is removed there and added back in the next, with no change between', async () => {
    const rows = await fx.withEdits(async () => {
      await editNodeRows(fx.db.connection, step(6).invocation_id, 'DELETE FROM edited_node WHERE unique_id = $1', [CUSTOMERS]);
      return changes(
        'SELECT from_invocation, to_invocation, change_kind, from_version IS NULL AS from_none, to_version IS NULL AS to_none FROM v_node_changes WHERE unique_id = $1 AND to_invocation IN ($2, $3) ORDER BY to_seq',
        [CUSTOMERS, step(6).invocation_id, step(7).invocation_id],
      );
    });
    expect(rows).toEqual([
      { from_invocation: step(5).invocation_id, to_invocation: step(6).invocation_id, change_kind: 'removed', from_none: false, to_none: true },
      { from_invocation: step(6).invocation_id, to_invocation: step(7).invocation_id, change_kind: 'added', from_none: true, to_none: false },
    ]);
  });

  it('a node first seen in a later manifest is added there; the first manifest adds nothing', async () => {
    const rows = await fx.withEdits(async () => {
      for (const earlier of fx.steps.filter((s) => s.step < 7)) {
        await editNodeRows(fx.db.connection, earlier.invocation_id, 'DELETE FROM edited_node WHERE unique_id = $1', [CUSTOMERS]);
      }
      return changes("SELECT unique_id, from_invocation, to_invocation FROM v_node_changes WHERE change_kind IN ('added', 'removed')", []);
    });
    expect(rows).toEqual([{ unique_id: CUSTOMERS, from_invocation: step(6).invocation_id, to_invocation: step(7).invocation_id }]);
  });
});

describe('v_test_history', () => {
  it('calls a test flaky when it fails again under definitions it passed with', async () => {
    const rows = await fx.withEdits(async () => {
      await repeatInvocation(12, 'again-13');
      await run(
        "INSERT INTO run_result_pending SELECT * REPLACE ($2::VARCHAR AS invocation_id, 'fail' AS status, 3 AS failures) FROM run_result WHERE invocation_id = $1 AND unique_id = $3",
        [step(12).invocation_id, 'again-13', STATUS_GROUP_TEST],
      );
      return fx.query('SELECT unique_id, fails, last_status, last_failure_invocation_id, flaky FROM v_test_history WHERE flaky OR fails > 0');
    });
    expect(rows).toEqual([{ unique_id: STATUS_GROUP_TEST, fails: 2, last_status: 'fail', last_failure_invocation_id: 'again-13', flaky: true }]);
  });

  it('still calls it flaky when the model it tests only gained a comment meanwhile', async () => {
    const rows = await fx.withEdits(async () => {
      await repeatInvocation(12, 'again-13');
      await editNode('again-13', 'model.attic_shop.orders', "raw_code || '\n-- a comment' AS raw_code");
      await run(
        "INSERT INTO run_result_pending SELECT * REPLACE ($2::VARCHAR AS invocation_id, 'fail' AS status, 3 AS failures) FROM run_result WHERE invocation_id = $1 AND unique_id = $3",
        [step(12).invocation_id, 'again-13', STATUS_GROUP_TEST],
      );
      return fx.query('SELECT unique_id FROM v_test_history WHERE flaky');
    });
    expect(rows).toEqual([{ unique_id: STATUS_GROUP_TEST }]);
  });
});

describe('v_runtime_regressions', () => {
  it('reports a run far slower than the median of the runs before it', async () => {
    const rows = await fx.withEdits(async () => {
      await repeatInvocation(12, 'slow-13');
      await run(
        'INSERT INTO run_result_pending SELECT * REPLACE ($2::VARCHAR AS invocation_id, 12.5 AS execution_time) FROM run_result WHERE invocation_id = $1 AND unique_id = $3',
        [step(12).invocation_id, 'slow-13', CUSTOMERS],
      );
      return fx.query('SELECT unique_id, last_invocation_id, last_s, baseline_median_s, baseline_runs, added_s FROM v_runtime_regressions');
    });
    const before = completedByNode(fx)
      .get(CUSTOMERS)!
      .map((e) => e.execution_time);
    const usual = median(before);
    expect(before.length).toBeGreaterThanOrEqual(3);
    expect(rows).toEqual([
      { unique_id: CUSTOMERS, last_invocation_id: 'slow-13', last_s: 12.5, baseline_median_s: usual, baseline_runs: before.length, added_s: 12.5 - usual },
    ]);
  });
});

describe('v_source_freshness_history', () => {
  it('shows the previous status of each source, so a change of status stands out', async () => {
    const rows = await fx.withEdits(async () => {
      await repeatInvocation(8, 'fresh-again');
      await run(
        "INSERT INTO source_freshness SELECT * REPLACE ($2::VARCHAR AS invocation_id, CASE WHEN unique_id = 'source.attic_shop.raw.orders' THEN 'error' ELSE status END AS status) FROM source_freshness WHERE invocation_id = $1",
        [step(8).invocation_id, 'fresh-again'],
      );
      return fx.query(
        "SELECT unique_id, status, previous_status, status_changed FROM v_source_freshness_history WHERE invocation_id = 'fresh-again' ORDER BY unique_id",
      );
    });
    expect(rows).toEqual([
      { unique_id: 'source.attic_shop.raw.customers', status: 'pass', previous_status: 'pass', status_changed: false },
      { unique_id: 'source.attic_shop.raw.orders', status: 'error', previous_status: 'warn', status_changed: true },
      { unique_id: 'source.attic_shop.raw.payments', status: 'error', previous_status: 'error', status_changed: false },
    ]);
  });
});
