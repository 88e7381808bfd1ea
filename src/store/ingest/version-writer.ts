import type { DuckDBConnection } from '@duckdb/node-api';
import type { CompiledCodeRow, MacroVersionRow, NodeEntryRow, NodeVersionRow } from '../../extract/index.js';
import { RowAppender } from './append.js';
import { rememberEntries } from './entry-memo.js';
import { readIds } from './joined-ids.js';

/**
 * Writes node and macro versions (a node version with its edges), and compiled SQL, in committed batches, on a connection of its own, beside the
 * invocation's transaction. Versions are content-addressed and immutable, so writing them early
 * is safe, and it keeps memory bounded: DuckDB holds uncommitted rows uncompressed, and a
 * 500 MB manifest's versions in one transaction took gigabytes.
 *
 * Each id is written once because the writer skips what the store holds (the store's write
 * lock keeps other writers out), not by a primary key: with one, every checkpoint spent 120 ms
 * on node_version's index and 100 ms on compiled_code's at 10,000 nodes x 200 runs, growing
 * with them, against 5 ms without (bench: a capture of 60 new versions).
 */
const BATCH_ROWS = 5_000;

/** Each kind of content-addressed row, by the table it lands in. */
const TABLES = { node: 'node_version', macro: 'macro_version', compiled: 'compiled_code' } as const;
type Kind = keyof typeof TABLES;
const EDGE_TABLE = 'node_version_edge';
type Row = NodeVersionRow | MacroVersionRow | CompiledCodeRow;

export class VersionWriter {
  private readonly pending: Record<Kind, Row[]> = { node: [], macro: [], compiled: [] };
  /** The node edges of each pending node version (node_version_edge), written in its batch. */
  private pendingEdges: { node_version_id: string; depends_on_id: string }[] = [];
  // One set per kind: a key built as kind + id cost a string per node and per compiled SQL.
  private readonly seen: Record<Kind, Set<string>> = { node: new Set(), macro: new Set(), compiled: new Set() };

  private constructor(private readonly connection: DuckDBConnection) {}

  /**
   * The versions the store holds count as written: in a history where few nodes change per
   * run, nearly every version an invocation holds is one of them, and its row is then neither
   * built (extract builds it when read) nor appended.
   */
  static async open(connection: DuckDBConnection): Promise<VersionWriter> {
    for (const table of [...Object.values(TABLES), EDGE_TABLE]) await connection.run(stageDdl(table, 'IF NOT EXISTS'));
    const writer = new VersionWriter(connection);
    await writer.noteStored();
    return writer;
  }

  /** `edges`: the version's depends_on.nodes, which follow from it, so they are written with it, once. */
  async addNode(id: string, row: () => NodeVersionRow, edges: () => readonly string[]): Promise<void> {
    await this.add('node', id, row, () => {
      for (const target of edges()) this.pendingEdges.push({ node_version_id: id, depends_on_id: target });
    });
  }

  async addMacro(id: string, row: () => MacroVersionRow): Promise<void> {
    await this.add('macro', id, row);
  }

  async addCompiledCode(id: string, row: () => CompiledCodeRow): Promise<void> {
    await this.add('compiled', id, row);
  }

  /** Node entries new to the memo; written at once, committed like versions (they name only versions and SQL). */
  async rememberEntries(rows: readonly NodeEntryRow[]): Promise<void> {
    await this.flush();
    await rememberEntries(this.connection, rows);
  }

  private async noteStored(): Promise<void> {
    for (const kind of Object.keys(TABLES) as Kind[]) {
      for (const id of await readIds(this.connection, idColumn(kind), TABLES[kind])) this.seen[kind].add(id);
    }
  }

  /** After rows nobody holds were deleted: a later invocation may bring them back. */
  async forgetWritten(): Promise<void> {
    for (const kind of Object.keys(TABLES) as Kind[]) this.seen[kind].clear();
    await this.noteStored();
  }

  private async add(kind: Kind, id: string, row: () => Row, also?: () => void): Promise<void> {
    const seen = this.seen[kind];
    if (seen.has(id)) return;
    seen.add(id);
    this.pending[kind].push(row());
    also?.();
    if (this.pending[kind].length >= BATCH_ROWS) await this.flushKind(kind);
  }

  async flush(): Promise<void> {
    for (const kind of Object.keys(TABLES) as Kind[]) await this.flushKind(kind);
  }

  private async flushKind(kind: Kind): Promise<void> {
    const rows = this.pending[kind];
    if (rows.length === 0) return;
    const edges = kind === 'node' ? this.pendingEdges : [];
    this.pending[kind] = [];
    if (kind === 'node') this.pendingEdges = [];
    const stage = `stage_${TABLES[kind]}`;
    try {
      const appender = await RowAppender.open(this.connection, stage, 'temp');
      try {
        for (const row of rows) appender.append(row);
        appender.close();
      } catch (error) {
        appender.discard();
        throw error;
      }
      await this.connection.run('BEGIN TRANSACTION');
      if (kind === 'node') await this.insertEdges(edges);
      const id = idColumn(kind);
      await this.connection.run(`INSERT INTO ${TABLES[kind]} SELECT * FROM ${stage} WHERE ${id} NOT IN (SELECT ${id} FROM ${TABLES[kind]})`);
      await this.connection.run('COMMIT');
    } catch (error) {
      await this.connection.run('ROLLBACK').catch(() => undefined);
      // A batch that did not fit (a value beyond the memory limit) is not written: forget it, so
      // another artifact holding one of its rows writes it again.
      for (const row of rows) this.seen[kind].delete(idOf(row));
      // Dropped, not emptied: rows deleted from a temp table keep their memory, and what did not
      // fit left the writer too little for the rest of the catch-up.
      for (const table of kind === 'node' ? [TABLES[kind], EDGE_TABLE] : [TABLES[kind]]) await this.recreateStage(table);
      throw error;
    }
    await this.connection.run(`DELETE FROM ${stage}`);
    if (kind === 'node') await this.connection.run(`DELETE FROM stage_${EDGE_TABLE}`);
  }

  private async recreateStage(table: string): Promise<void> {
    await this.connection.run(stageDdl(table, 'OR REPLACE'));
  }

  /**
   * The edges of the versions in the batch that node_version does not hold yet (in the same
   * transaction as the versions): a version is in the store with all its edges or not at all.
   */
  private async insertEdges(edges: readonly { node_version_id: string; depends_on_id: string }[]): Promise<void> {
    if (edges.length === 0) return;
    const appender = await RowAppender.open(this.connection, `stage_${EDGE_TABLE}`, 'temp');
    for (const edge of edges) appender.append(edge);
    appender.close();
    await this.connection.run(
      `INSERT INTO ${EDGE_TABLE} SELECT * FROM stage_${EDGE_TABLE} WHERE node_version_id NOT IN (SELECT node_version_id FROM node_version)`,
    );
  }
}

const idColumn = (kind: Kind): string => `${kind === 'compiled' ? 'compiled_code' : `${kind}_version`}_id`;

function idOf(row: Row): string {
  if ('node_version_id' in row) return row.node_version_id;
  if ('macro_version_id' in row) return row.macro_version_id;
  return row.compiled_code_id;
}

/** The temp table a kind's rows are staged in, shaped as the table they go to. */
function stageDdl(table: string, mode: 'IF NOT EXISTS' | 'OR REPLACE'): string {
  return mode === 'OR REPLACE'
    ? `CREATE OR REPLACE TEMP TABLE stage_${table} AS SELECT * FROM ${table} LIMIT 0`
    : `CREATE TEMP TABLE IF NOT EXISTS stage_${table} AS SELECT * FROM ${table} LIMIT 0`;
}
