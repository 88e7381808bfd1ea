import { randomBytes } from 'node:crypto';
import { openDatabase } from '../../src/store/index.js';

/**
 * Makes a store wasteful past compaction's threshold (a quarter of the file free, past 32 MB):
 * incompressible rows checkpointed, then dropped, with a table written after them so that they
 * are not at the end, where DuckDB cuts the file.
 */
export async function addFreeBlocks(file: string): Promise<void> {
  const name = `waste_${randomBytes(4).toString('hex')}`;
  const db = await openDatabase(file, 'write');
  try {
    await db.connection.run(`CREATE TABLE ${name} AS SELECT md5(i::VARCHAR) || md5((i + 1)::VARCHAR) AS x FROM range(1500000) t(i)`);
    await db.connection.run('CHECKPOINT');
    await db.connection.run(`CREATE TABLE ${name}_after AS SELECT md5(i::VARCHAR) AS x FROM range(20000) t(i)`);
    await db.connection.run('CHECKPOINT');
    await db.connection.run(`DROP TABLE ${name}`);
  } finally {
    db.close();
  }
}
