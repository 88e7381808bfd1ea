import type { DuckDBConnection } from '@duckdb/node-api';
import { authoritativeOutput, listOutputRecordKeys, readOutputRecords, readSqlTree, type Backend, type OutputRecord } from '../../archive/index.js';
import { isAtticError } from '../../errors.js';
import type { IngestProblem } from './ingest-problem.js';

/**
 * Rows of what an invocation wrote besides artifacts: its output records, and the files of its
 * authoritative SQL tree, each matched to the node whose compiled or run file it is.
 */
export const OUTPUT_TABLES = ['invocation_output', 'node_sql'] as const;

/**
 * A damaged output record is left out (a full catch-up lists it in ingest_problem); a damaged
 * SQL tree leaves node_sql empty for the invocation and is returned as its problem.
 */
export async function writeOutputRows(connection: DuckDBConnection, backend: Backend, invocationId: string): Promise<IngestProblem[]> {
  for (const table of OUTPUT_TABLES) await connection.run(`DELETE FROM ${table} WHERE invocation_id = $1`, [invocationId]);
  const records = await readOutputRecords(backend, await listOutputRecordKeys(backend, invocationId));
  const chosen = new Set([authoritativeOutput(records, 'sql'), authoritativeOutput(records, 'log')]);
  for (const r of records) {
    await connection.run('INSERT INTO invocation_output VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)', [
      r.invocation_id,
      r.output,
      r.sha256,
      r.size,
      r.entries,
      r.detail.files_bytes ?? null,
      r.detail.log_format ?? null,
      r.detail.attributed_by ?? null,
      r.captured_at,
      r.capture_id,
      chosen.has(r),
    ]);
  }
  const tree = authoritativeOutput(records, 'sql');
  if (!tree) return [];
  try {
    await writeNodeSql(connection, backend, tree);
    return [];
  } catch (error) {
    if (!isAtticError(error) || error.code !== 'archive-damaged') throw error;
    await connection.run('DELETE FROM node_sql WHERE invocation_id = $1', [invocationId]);
    return [{ invocation_id: invocationId, artifact_type: 'sql', object_id: tree.sha256, kind: 'damaged', archive_key: null, message: error.message }];
  }
}

async function writeNodeSql(connection: DuckDBConnection, backend: Backend, tree: OutputRecord): Promise<void> {
  const { files } = await readSqlTree(backend, tree.sha256);
  for (const [path, file] of files) {
    const kind = path.startsWith('compiled/') ? 'compiled' : path.startsWith('run/') ? 'run' : null;
    if (kind) await connection.run('INSERT INTO node_sql VALUES ($1, NULL, $2, $3, $4, $5)', [tree.invocation_id, kind, path, file.id, file.size]);
  }
  // dbt's compiled_path is <target-path>/compiled/<package>/<original_file_path>, plus the test's
  // own file, named after its alias, for a generic test (defined in YAML); run/ mirrors compiled/.
  await connection.run(
    `UPDATE node_sql SET unique_id = n.unique_id
     FROM (SELECT ni.unique_id, nv.package_name || '/' || nv.path || CASE WHEN regexp_matches(nv.path, '\\.ya?ml$') THEN '/' || nv.identifier || '.sql' ELSE '' END AS rel
           FROM node_invocation AS ni JOIN node_version AS nv USING (node_version_id)
           WHERE ni.invocation_id = $1 AND NOT nv.disabled) AS n
     WHERE node_sql.invocation_id = $1 AND substr(node_sql.path, strpos(node_sql.path, '/') + 1) = n.rel`,
    [tree.invocation_id],
  );
  // dbt v2 (Fusion) leaves the package out: compiled/<original_file_path>.
  await connection.run(
    `UPDATE node_sql SET unique_id = n.unique_id
     FROM (SELECT ni.unique_id, nv.path AS rel FROM node_invocation AS ni JOIN node_version AS nv USING (node_version_id)
           WHERE ni.invocation_id = $1 AND NOT nv.disabled AND NOT regexp_matches(nv.path, '\\.ya?ml$')) AS n
     WHERE node_sql.invocation_id = $1 AND node_sql.unique_id IS NULL AND node_sql.kind = 'compiled' AND substr(node_sql.path, length('compiled/') + 1) = n.rel`,
    [tree.invocation_id],
  );
}
