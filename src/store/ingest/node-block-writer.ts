import type { DuckDBConnection } from '@duckdb/node-api';
import { RowAppender } from './append.js';
import { idsParameter, joinIds, readIds } from './joined-ids.js';
import { planNodeBlocks, type NodeMember } from './node-blocks.js';

/**
 * Writes an invocation's nodes (node-blocks.ts): a row per block it holds, and the rows of only
 * those blocks and macro sets the store does not hold yet. Runs in the invocation's
 * transaction, so a block is never without an invocation holding it; blocks no invocation
 * holds any more leave with dropUnheldVersions (ingest.ts).
 */
export async function writeNodeBlocks(connection: DuckDBConnection, invocationId: string, members: readonly NodeMember[], held: RowAppender): Promise<void> {
  const { blocks, macroSets } = planNodeBlocks(members);
  for (const block of blocks) held.append({ invocation_id: invocationId, block_id: block.blockId });
  const storedBlocks = await storedAmong(
    connection,
    'node_block',
    'block_id',
    blocks.map((b) => b.blockId),
  );
  const storedSets = await storedAmong(
    connection,
    'macro_set',
    'macro_set_id',
    macroSets.map((s) => s.macroSetId),
  );
  const newBlocks = blocks.filter((b) => !storedBlocks.has(b.blockId));
  const newSets = macroSets.filter((s) => !storedSets.has(s.macroSetId));
  if (newBlocks.length > 0) {
    const appender = await RowAppender.open(connection, 'node_block');
    for (const block of newBlocks) for (const row of block.rows) appender.append(row);
    appender.close();
  }
  if (newSets.length > 0) {
    const appender = await RowAppender.open(connection, 'macro_set');
    for (const set of newSets) for (const macro of set.macros) appender.append({ macro_set_id: set.macroSetId, depends_on_id: macro });
    appender.close();
  }
}

/** Which of `ids` (hex) the table holds. */
async function storedAmong(connection: DuckDBConnection, table: string, column: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  return new Set(await readIds(connection, column, `${table} WHERE ${column} IN (${idsParameter('$1')})`, [joinIds(ids)]));
}
