import type { DuckDBConnection } from '@duckdb/node-api';
import { plainResult } from '../db/plain-rows.js';

/**
 * dbt files each artifact under the invocation that wrote it, and a run's run_results.json can
 * sit in target/ beside a manifest another invocation wrote (a later `dbt parse`, a `source
 * freshness`, dbt Cloud's rpc): that run then has results and no manifest of its own. The
 * manifests a capture filed beside its results are the ones worth naming instead.
 */
export async function manifestsFiledBeside(connection: DuckDBConnection, invocationId: string): Promise<string[]> {
  const reader = await connection.runAndReadAll(
    `SELECT DISTINCT c.invocation_id FROM artifact_capture AS a
     JOIN capture_artifact AS c ON c.capture_id = a.capture_id
     WHERE a.invocation_id = $1 AND c.artifact_type = 'manifest' AND c.invocation_id IS NOT NULL AND c.invocation_id <> $1
     ORDER BY 1`,
    [invocationId],
  );
  return plainResult(reader).rows.map((r) => String(r.invocation_id));
}

/** Why a named invocation cannot be planned, said as what it holds and what can be planned instead. */
export async function noManifestToPlan(connection: DuckDBConnection, invocationId: string): Promise<string> {
  const [row] = plainResult(await connection.runAndReadAll('SELECT command, result_count FROM invocation WHERE invocation_id = $1', [invocationId])).rows;
  const results = Number(row?.result_count ?? 0);
  const held =
    results > 0
      ? `has ${results} run result${results === 1 ? '' : 's'}${row?.command ? ` (dbt ${String(row.command)})` : ''} but no manifest of its own`
      : 'has no manifest of its own';
  const beside = await manifestsFiledBeside(connection, invocationId);
  const instead =
    beside.length > 0
      ? `The manifest captured beside it was written by another invocation, ${beside.join(', ')}: plan that one with --invocation ${beside[0]}.`
      : 'Plan an invocation that has a manifest with --invocation, or target/ as it is after dbt parse.';
  return `Invocation ${invocationId} ${held}, so there is nothing to plan. ${instead}`;
}
