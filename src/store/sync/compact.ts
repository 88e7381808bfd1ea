import type { DuckDBConnection } from '@duckdb/node-api';
import { STORAGE_VERSION } from '../schema.js';

/**
 * The table of run results, copied ordered by node. Ingest appends it invocation by
 * invocation, so each row group holds 10,000 distinct node ids and version ids (10,000 nodes),
 * too many for a dictionary: they were stored nearly raw. Ordered by node, a row group holds
 * a node's runs side by side: at 10,000 nodes x 200 runs the copy was 162 MB ordered, 311 MB
 * in the order ingest left (when results were kept twice, in run_result and run_history:
 * 2 million rows each; the ordering was 9 of the copy's 10.5 s).
 */
const ORDERED_BY_NODE: Readonly<Record<string, string>> = { run_history: 'unique_id, invocation_id' };

/**
 * Copies the database into a new file that holds only its used blocks, the result tables in
 * node order (above), and stamps the copy's size in store_meta: a store grown by ingest is
 * compacted again once it is well past that size (isWasteful).
 */
export async function copyCompacted(connection: DuckDBConnection, target: string, source?: string): Promise<void> {
  const name = source ?? String((await connection.runAndReadAll('SELECT current_database()')).getRows()[0]?.[0]);
  const from = quoteName(name);
  await connection.run(`ATTACH '${target.replaceAll("'", "''")}' AS compacted (STORAGE_VERSION '${STORAGE_VERSION}')`);
  try {
    await connection.run(`COPY FROM DATABASE ${from} TO compacted (SCHEMA)`);
    const tables = (await connection.runAndReadAll('SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = $1', [name]))
      .getRows()
      .map(([schema, table]) => [String(schema), String(table)] as const);
    const copyTable = async (schema: string, table: string) => {
      const order = schema === 'main' ? ORDERED_BY_NODE[table] : undefined;
      const qualified = `${quoteName(schema)}.${quoteName(table)}`;
      await connection.run(`INSERT INTO compacted.${qualified} SELECT * FROM ${from}.${qualified}${order ? ` ORDER BY ${order}` : ''}`);
    };
    const isMeta = (schema: string, table: string) => schema === 'main' && table === 'store_meta';
    for (const [schema, table] of tables) if (!isMeta(schema, table)) await copyTable(schema, table);
    if (!tables.some(([schema, table]) => isMeta(schema, table))) return;
    // Measured once the data is written; store_meta, written after, then fits in what is left.
    await connection.run('CHECKPOINT compacted');
    await copyTable('main', 'store_meta');
    await connection.run(
      `INSERT OR REPLACE INTO compacted.store_meta SELECT '${COMPACTED_BYTES_KEY}', (used_blocks * block_size)::VARCHAR FROM pragma_database_size() WHERE database_name = 'compacted'`,
    );
  } finally {
    await connection.run('DETACH compacted');
  }
}

const COMPACTED_BYTES_KEY = 'compacted_bytes';
const quoteName = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The size the store had when it was last copied compacted; null if it never was. */
export async function readCompactedBytes(connection: DuckDBConnection, database?: string): Promise<number | null> {
  const table = database ? `${quoteName(database)}.main.store_meta` : 'store_meta';
  const rows = (await connection.runAndReadAll(`SELECT value FROM ${table} WHERE key = $1`, [COMPACTED_BYTES_KEY])).getRows();
  const value = Number(rows[0]?.[0]);
  return Number.isFinite(value) && value > 0 ? value : null;
}

export interface StoreSpace {
  totalBlocks: number;
  freeBlocks: number;
  blockSize: number;
}

/**
 * The file's blocks. On the connection that writes the store, what it wrote is checkpointed
 * first (before, free blocks are not known yet); an attached `database` is read as its last
 * writer left it, checkpointed when it closed.
 */
export async function readSpace(connection: DuckDBConnection, database?: string): Promise<StoreSpace> {
  if (!database) await connection.run('CHECKPOINT');
  const which = database ? '$1' : 'current_database()';
  const row =
    (
      await connection.runAndReadAll(
        `SELECT total_blocks, free_blocks, block_size FROM pragma_database_size() WHERE database_name = ${which}`,
        database ? [database] : [],
      )
    ).getRows()[0] ?? [];
  return { totalBlocks: Number(row[0] ?? 0), freeBlocks: Number(row[1] ?? 0), blockSize: Number(row[2] ?? 0) };
}

/**
 * Ingest leaves two kinds of waste: free blocks (each checkpoint rewrites the row groups it
 * appended to; DuckDB reuses free blocks but never gives them back) and rows stored in the order
 * they came, which compress half as well (ORDERED_BY_NODE). At 10,000 nodes x 200 runs a store
 * captured run by run was 386 MB with only 18 % of it free, against 162 MB copied compacted. So
 * the store is copied when a quarter of it is free or its used blocks have grown to 4/3 of its
 * size at the last copy (or it was never copied): as the copy costs about as much per MB as the
 * growth that triggers it, its cost per run stays the same as the history grows. Small stores
 * are never worth it.
 */
export const COMPACT_MIN_BYTES = 32 * 1024 * 1024;
const GROWTH_BEFORE_COPY = 4 / 3;

export function isWasteful(space: StoreSpace, compactedBytes: number | null, minBytes = COMPACT_MIN_BYTES): boolean {
  const bytes = space.totalBlocks * space.blockSize;
  if (bytes < minBytes) return false;
  if (space.freeBlocks * 4 >= space.totalBlocks) return true;
  // Used, not total: the first ingest after a copy rewrites the row groups it appends to and
  // frees their old blocks (97 at 10,000 nodes x 200 runs, a quarter of the data), which later
  // ingests reuse; counted, they called for a copy at every run of a small store.
  return compactedBytes === null || (space.totalBlocks - space.freeBlocks) * space.blockSize >= GROWTH_BEFORE_COPY * compactedBytes;
}

export interface Compaction {
  fromBytes: number;
  toBytes: number;
}
