import type { DuckDBConnection } from '@duckdb/node-api';
import { duckdb } from '../duckdb.js';
import { invocationNodes } from './invocation-nodes.js';

/**
 * test_definition (schema/001-tables.sql): each test's latest enabled definition, which
 * v_test_history names the tested node from. At each read, the view looked for it in every
 * manifest's nodes.
 *
 * A test's latest manifest changes only through the manifests named: the latest of the row held
 * (when it is not one of them) and of their entries is the latest of all. When the row held
 * names one of them (ingested again, or forgotten), the other manifests are searched again, for
 * that test only; a new capture's manifest is later than every other, so it needs no search.
 */
const IDS = `(SELECT unnest($1::VARCHAR[]))`;

/** Enabled test entries of `nodes`, node_invocation's rows or some of them. */
const testEntries = (nodes: string): string => `
  SELECT n.invocation_id, n.unique_id, n.node_version_id
  FROM ${nodes} AS n
  JOIN node_version AS nv ON nv.node_version_id = n.node_version_id AND NOT nv.disabled AND nv.resource_type IN ('test', 'unit_test')`;

/**
 * The entries of the manifests named, and of every manifest for the tests whose row names one
 * of them (`searched`: none, for a new capture), with the rows held for the others.
 */
const candidates = (searched: boolean): string => `
CREATE OR REPLACE TEMP TABLE definition_candidate AS
WITH ${invocationNodes('named_node', IDS)},
entry AS (
  ${testEntries('named_node')}
  ${searched ? `UNION ALL ${testEntries('node_invocation')} WHERE n.unique_id IN (SELECT unique_id FROM test_definition WHERE invocation_id IN ${IDS})` : ''}
),
held AS (
  SELECT invocation_id, unique_id, node_version_id FROM test_definition
  WHERE NOT list_contains($1::VARCHAR[], invocation_id) AND unique_id IN (SELECT unique_id FROM entry)
)
SELECT c.*, s.seq
FROM (SELECT * FROM entry UNION ALL SELECT * FROM held) AS c
JOIN v_invocation_sequence AS s ON s.invocation_id = c.invocation_id`;

/** Derives again the rows of tests the manifests of `ids` (ingested, re-ingested or forgotten) have, or had. */
export async function refreshTestDefinitions(connection: DuckDBConnection, ids: readonly string[]): Promise<void> {
  const [list, types] = [[duckdb.listValue([...ids])], [duckdb.LIST(duckdb.VARCHAR)]];
  const named = await connection.runAndReadAll(`SELECT count(*) FROM test_definition WHERE invocation_id IN ${IDS}`, list, types);
  await connection.run(candidates(Number(named.getRows()[0]?.[0] ?? 0) > 0), list, types);
  await connection.run(`DELETE FROM test_definition WHERE invocation_id IN ${IDS} OR unique_id IN (SELECT unique_id FROM definition_candidate)`, list, types);
  await connection.run(
    'INSERT INTO test_definition SELECT unique_id, arg_max(invocation_id, seq), arg_max(node_version_id, seq) FROM definition_candidate GROUP BY unique_id',
  );
  await connection.run('DROP TABLE IF EXISTS definition_candidate');
}
