import type { Database } from '../store/index.js';
import type { DatasetFile } from './layout.js';
import { rowsDigest } from './layout.js';
import { projectKey } from './project-identity.js';
import type { DatasetTable } from './tables.js';

/** Where an invocation's files go. */
export interface InvocationPartition {
  project: string;
  /** The partition its project's name alone would give: where an export without export.project put it. */
  nameOnly: string;
  /** The UTC day it was invoked on; 1970-01-01 when the store knows no time for it. */
  date: string;
}

/**
 * Each invocation's partition. The remote that names a project is the newest one its runs were
 * captured with, so a run without git (a laptop's) lands beside the CI runs of the same project.
 * An invocation whose artifacts name no project (a run_results.json captured without its
 * manifest) is the project's of the invocation before it in history, else of the one after: a
 * partition of its own ('unnamed') would split one project's history in two.
 */
const PARTITIONS = `
WITH run AS (
  SELECT i.invocation_id, i.project_name, i.git_remote, coalesce(i.started_at, i.generated_at, c.captured_at) AS invoked_at,
    coalesce(i.generated_at, c.captured_at) AS ordered_at, i.run_id
  FROM invocation AS i LEFT JOIN capture AS c ON c.capture_id = i.run_id
),
named AS (
  SELECT *, coalesce(project_name,
    last_value(project_name IGNORE NULLS) OVER (ORDER BY ordered_at NULLS LAST, run_id, invocation_id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
    first_value(project_name IGNORE NULLS) OVER (ORDER BY ordered_at NULLS LAST, run_id, invocation_id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)) AS project
  FROM run
),
remote AS (
  SELECT project, arg_max(git_remote, ordered_at) AS git_remote FROM named WHERE git_remote IS NOT NULL GROUP BY project
)
SELECT r.invocation_id, r.project, m.git_remote, coalesce(strftime(timezone('UTC', r.invoked_at), '%Y-%m-%d'), '1970-01-01') AS day
FROM named AS r LEFT JOIN remote AS m ON m.project IS NOT DISTINCT FROM r.project`;

export async function readPartitions(db: Database, explicitProject: string | null): Promise<Map<string, InvocationPartition>> {
  const rows = (await db.connection.runAndReadAll(PARTITIONS)).getRows() as [string, string | null, string | null, string][];
  return new Map(
    rows.map(([id, name, remote, date]) => [id, { project: projectKey(explicitProject, name, remote), nameOnly: projectKey(null, name, null), date }]),
  );
}

/**
 * The file each invocation's rows of `table` make now, named by a digest of those rows: the
 * sum of DuckDB's hash of each row (order does not matter, a repeated row counts twice) and
 * their count. Reading the digests costs one scan of the table, not a write; with `owners`, of
 * those owners' rows (the filter reaches the table's scan where the owner is a column of it).
 */
export async function readNeededFiles(
  db: Database,
  table: DatasetTable,
  partitions: ReadonlyMap<string, InvocationPartition>,
  owners: ReadonlySet<string> | null = null,
): Promise<DatasetFile[]> {
  if (owners?.size === 0) return [];
  const list = owners ? `(${ownerList([...owners])})` : null;
  const sql = `SELECT owner, count(*)::VARCHAR || ':' || sum(hash(q))::VARCHAR FROM (${table.select}) AS q ${list ? `WHERE owner IN ${list}` : ''} GROUP BY owner`;
  const rows = (await db.connection.runAndReadAll(sql)).getRows() as [string, string][];
  return rows.flatMap(([owner, digest]) => {
    const partition = partitions.get(owner);
    return partition
      ? [{ table: table.name, project: partition.project, date: partition.date, invocationId: owner, digest: rowsDigest(`${table.name}\n${digest}`) }]
      : [];
  });
}

/** The store's invocations in history's order. */
export async function readHistoryOrder(db: Database): Promise<string[]> {
  const rows = (await db.connection.runAndReadAll('SELECT invocation_id FROM v_invocation_sequence ORDER BY seq')).getRows() as [string][];
  return rows.map(([id]) => id);
}

/**
 * Owners per COPY. DuckDB keeps at most `partitioned_write_max_open_files` (100) partitions'
 * files open; past that it closes one and later starts a second file for it, and an owner's rows
 * must be one file (the 10,000-node bench's first export of 199 runs got four for one run).
 */
const OWNERS_PER_COPY = 64;

/**
 * Writes the rows of `owners` in `table` as Parquet (DuckDB's writer, zstd), one file per owner,
 * under `dir/owner=<id>/`. The partition columns stay out of the files: engines that read
 * Hive partitions refuse a column that is in both.
 */
export async function copyTableFiles(db: Database, table: DatasetTable, owners: readonly string[], dir: string): Promise<void> {
  for (let i = 0; i < owners.length; i += OWNERS_PER_COPY) {
    const list = `(${ownerList(owners.slice(i, i + OWNERS_PER_COPY))})`;
    const sql = `COPY (SELECT * FROM (${table.select}) AS q WHERE owner IN ${list}) TO '${dir.replaceAll("'", "''")}' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (owner), OVERWRITE_OR_IGNORE)`;
    await db.connection.run(sql);
  }
}

function ownerList(owners: readonly string[]): string {
  return owners.map((id) => `'${id.replaceAll("'", "''")}'`).join(', ');
}
