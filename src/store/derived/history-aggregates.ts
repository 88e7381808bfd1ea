import type { DuckDBConnection } from '@duckdb/node-api';
import { duckdb } from '../duckdb.js';
import { addRuntimeRuns } from './node-runtime.js';
import { MATCHED_HISTORY } from './run-history.js';
import { addTestRuns } from './test-history.js';

/**
 * The tables that aggregate run history per node, test_history (v_test_history) and node_runtime
 * (v_node_runtime), derived when invocations are ingested or forgotten. They follow from all of
 * a node's results; a run later than every run counted (a new capture, the usual case) is added
 * to them, so a capture costs its own results; anything else derives them again from
 * run_history: a run filed late may come before counted ones, and moves the nodes matched to the
 * runs after it; a forgotten or re-ingested run was counted.
 */

/** Adds the results of `runs` from `history`, all later than every run in `counted` (the runs added before). */
type AddRuns = (connection: DuckDBConnection, history: string, runs: readonly string[], counted: string) => Promise<void>;

const AGGREGATES: Readonly<Record<string, AddRuns>> = { test_history: addTestRuns, node_runtime: addRuntimeRuns };

const COUNTED = 'history_counted_invocation';
const IDS = `(SELECT unnest($1::VARCHAR[]))`;

/** Runs whose results one merge adds: a rebuild adds every run, and all at once outgrew the writer's memory limit. */
const BATCH = 50;

/**
 * Whether the runs named can be added to what the aggregates count: all still stored, none
 * counted already, and every one later than every run counted.
 */
const ADDABLE = `
SELECT count(*) = count(s.invocation_id)
   AND count(*) FILTER (WHERE s.invocation_id IN (SELECT invocation_id FROM ${COUNTED})) = 0
   AND coalesce(min(s.seq) > (SELECT max(c.seq) FROM v_invocation_sequence AS c JOIN ${COUNTED} AS t ON t.invocation_id = c.invocation_id), true)
FROM ${IDS} AS i(invocation_id)
LEFT JOIN v_invocation_sequence AS s ON s.invocation_id = i.invocation_id`;

/**
 * Derives again what the aggregates hold for `ids` (ingested, re-ingested or forgotten), after
 * run_history (refreshRunHistory), from which they read: the rows of `ids` in MATCHED_HISTORY,
 * and after the test results' states (refreshTestRunStates), which test_history reads.
 */
export async function refreshHistoryAggregates(connection: DuckDBConnection, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  // Typed: an empty list has no item type to infer.
  const addable = (await connection.runAndReadAll(ADDABLE, [duckdb.listValue([...ids])], [duckdb.LIST(duckdb.VARCHAR)])).getRows()[0]?.[0] === true;
  if (!addable) for (const table of [...Object.keys(AGGREGATES), COUNTED]) await connection.run(`DELETE FROM ${table}`);
  // Derived again, the whole history is added, as the runs named are: a few runs at a time, in
  // history order, each stretch later than the one before.
  const runs = await inHistoryOrder(connection, addable ? ids : null);
  const history = addable ? MATCHED_HISTORY : 'run_history';
  for (let i = 0; i < runs.length; i += BATCH) await addRuns(connection, history, runs.slice(i, i + BATCH));
}

/** The runs of `ids` (all runs when null) by v_invocation_sequence.seq. */
async function inHistoryOrder(connection: DuckDBConnection, ids: readonly string[] | null): Promise<string[]> {
  const sql = `SELECT invocation_id FROM v_invocation_sequence ${ids ? `WHERE invocation_id IN ${IDS}` : ''} ORDER BY seq`;
  const reader = ids ? await connection.runAndReadAll(sql, [duckdb.listValue([...ids])], [duckdb.LIST(duckdb.VARCHAR)]) : await connection.runAndReadAll(sql);
  return reader.getRows().map(([id]) => String(id));
}

/**
 * Adds the results of `runs` from `history` to every aggregate, and counts the runs that have
 * results: a run without any (a manifest alone) adds nothing, so its results, once captured, can
 * still be added.
 */
async function addRuns(connection: DuckDBConnection, history: string, runs: readonly string[]): Promise<void> {
  for (const add of Object.values(AGGREGATES)) await add(connection, history, runs, COUNTED);
  await connection.run(
    `INSERT INTO ${COUNTED} SELECT DISTINCT invocation_id FROM ${history} WHERE invocation_id IN ${IDS}`,
    [duckdb.listValue([...runs])],
    [duckdb.LIST(duckdb.VARCHAR)],
  );
}
