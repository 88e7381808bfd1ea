import type { DuckDBConnection } from '@duckdb/node-api';
import type { MacroVersionRow, NodeVersionRow } from '../extract/index.js';
import { RowAppender } from './append.js';

/**
 * Writes node and macro versions in committed batches, on a connection of its own, beside the
 * invocation's transaction. Versions are content-addressed and immutable, so writing them early
 * is safe, and it keeps memory bounded: DuckDB holds uncommitted rows uncompressed, and a
 * 500 MB manifest's versions in one transaction took gigabytes.
 */
const BATCH_ROWS = 5_000;

type Kind = 'node' | 'macro';

export class VersionWriter {
  private readonly pending: Record<Kind, (NodeVersionRow | MacroVersionRow)[]> = { node: [], macro: [] };
  private readonly seen = new Set<string>();

  private constructor(private readonly connection: DuckDBConnection) {}

  static async open(connection: DuckDBConnection): Promise<VersionWriter> {
    await connection.run('CREATE TEMP TABLE IF NOT EXISTS stage_node_version AS SELECT * FROM node_version LIMIT 0');
    await connection.run('CREATE TEMP TABLE IF NOT EXISTS stage_macro_version AS SELECT * FROM macro_version LIMIT 0');
    return new VersionWriter(connection);
  }

  async addNode(row: NodeVersionRow): Promise<void> {
    await this.add('node', row.node_version_id, row);
  }

  async addMacro(row: MacroVersionRow): Promise<void> {
    await this.add('macro', row.macro_version_id, row);
  }

  private async add(kind: Kind, id: string, row: NodeVersionRow | MacroVersionRow): Promise<void> {
    if (this.seen.has(id)) return;
    this.seen.add(id);
    this.pending[kind].push(row);
    if (this.pending[kind].length >= BATCH_ROWS) await this.flushKind(kind);
  }

  async flush(): Promise<void> {
    await this.flushKind('node');
    await this.flushKind('macro');
  }

  private async flushKind(kind: Kind): Promise<void> {
    const rows = this.pending[kind];
    if (rows.length === 0) return;
    this.pending[kind] = [];
    const stage = `stage_${kind}_version`;
    try {
      const appender = await RowAppender.open(this.connection, stage, 'temp');
      for (const row of rows) appender.append(row);
      appender.close();
      await this.connection.run(`INSERT OR IGNORE INTO ${kind}_version SELECT * FROM ${stage}`);
      if (kind === 'node') await this.fillIn();
    } catch (error) {
      // A batch that did not fit (a value beyond the memory limit) is not written: forget it, so
      // another artifact holding one of its versions writes it again.
      for (const row of rows) this.seen.delete('node_version_id' in row ? row.node_version_id : row.macro_version_id);
      throw error;
    } finally {
      await this.connection.run(`DELETE FROM ${stage}`);
    }
  }

  /**
   * compiled_code and relation_name are null after `dbt parse`: a later manifest that has them
   * completes a version that is already stored.
   */
  private async fillIn(): Promise<void> {
    await this.connection.run(`UPDATE node_version SET compiled_code = coalesce(node_version.compiled_code, s.compiled_code), relation_name = coalesce(node_version.relation_name, s.relation_name)
      FROM stage_node_version s
      WHERE node_version.node_version_id = s.node_version_id
        AND ((node_version.compiled_code IS NULL AND s.compiled_code IS NOT NULL) OR (node_version.relation_name IS NULL AND s.relation_name IS NOT NULL))`);
  }
}
