/**
 * The store's tables and views for an agent writing SQL: columns as the store reports them, and
 * the descriptions the schema gives them (`COMMENT ON` in schema/*.sql), read from the database
 * like the columns, so that every front end says what the store itself says.
 */
export interface RelationDoc {
  name: string;
  kind: 'table' | 'view';
  description: string | null;
  columns: Array<{ name: string; type: string; description?: string }>;
}

export const COLUMNS_SQL = `SELECT c.table_name, c.column_name, c.data_type, t.table_type, t.TABLE_COMMENT AS table_comment, c.COLUMN_COMMENT AS column_comment
  FROM information_schema.columns AS c JOIN information_schema.tables AS t USING (table_catalog, table_schema, table_name)
  WHERE c.table_catalog = current_database() AND c.table_schema = 'main' AND c.table_name <> 'store_meta' ORDER BY c.table_name, c.ordinal_position`;

export function describeRelations(rows: Array<Record<string, unknown>>): RelationDoc[] {
  const byName = new Map<string, RelationDoc>();
  for (const row of rows) {
    const name = String(row.table_name);
    let doc = byName.get(name);
    if (!doc) {
      doc = { name, kind: row.table_type === 'VIEW' ? 'view' : 'table', description: textOrNull(row.table_comment), columns: [] };
      byName.set(name, doc);
    }
    const description = textOrNull(row.column_comment);
    doc.columns.push({ name: String(row.column_name), type: String(row.data_type), ...(description === null ? {} : { description }) });
  }
  return [...byName.values()];
}

function textOrNull(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
