import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import type { Cell } from '../../extract/index.js';

/**
 * Bulk rows go through DuckDB's Appender (about a million rows a second; a prepared INSERT per
 * row manages thousands). Row objects list their columns in the table's order.
 */
export class RowAppender {
  private constructor(
    private readonly appender: DuckDBAppender,
    private readonly table: string,
  ) {}

  static async open(connection: DuckDBConnection, table: string, catalog: 'main' | 'temp' = 'main'): Promise<RowAppender> {
    const appender = await connection.createAppender(table, 'main', catalog === 'temp' ? 'temp' : null);
    return new RowAppender(appender, table);
  }

  append(row: object): void {
    const values = Object.values(row) as Cell[];
    if (values.length !== this.appender.columnCount) {
      throw new Error(`a ${this.table} row has ${values.length} values for ${this.appender.columnCount} columns`);
    }
    for (const value of values) this.appendCell(value);
    this.appender.endRow();
  }

  private appendCell(value: Cell): void {
    if (value === null || value === undefined) this.appender.appendNull();
    else if (typeof value === 'string') this.appender.appendVarchar(value);
    else if (typeof value === 'boolean') this.appender.appendBoolean(value);
    else this.appender.appendDouble(value);
  }

  close(): void {
    try {
      this.appender.flushSync();
    } finally {
      this.discard();
    }
  }

  /**
   * Closes without keeping what was appended, after a row that did not fit: an appender left
   * open holds what it buffered, and a value too large for the writer's memory left too little
   * for the rest of the catch-up.
   */
  discard(): void {
    try {
      this.appender.closeSync();
    } catch {
      // closeSync flushes again, and fails again on what did not fit; it is closed all the same.
    }
  }
}
