import { readFileSync } from 'node:fs';

/**
 * The store's tables and views for an agent writing SQL: columns as the store reports them, and
 * README's one-line description of each (the tables under "The store (DuckDB)"), so the schema
 * has one definition and its prose one place.
 */
export interface RelationDoc {
  name: string;
  kind: 'table' | 'view';
  description: string | null;
  columns: Array<{ name: string; type: string }>;
}

export const COLUMNS_SQL = `SELECT c.table_name, c.column_name, c.data_type, t.table_type
  FROM information_schema.columns AS c JOIN information_schema.tables AS t USING (table_schema, table_name)
  WHERE c.table_schema = 'main' AND c.table_name <> 'store_meta' ORDER BY c.table_name, c.ordinal_position`;

export function describeRelations(rows: Array<Record<string, unknown>>, readme: string): RelationDoc[] {
  const descriptions = readmeDescriptions(readme);
  const byName = new Map<string, RelationDoc>();
  for (const row of rows) {
    const name = String(row.table_name);
    let doc = byName.get(name);
    if (!doc) {
      doc = { name, kind: row.table_type === 'VIEW' ? 'view' : 'table', description: descriptions.get(name) ?? null, columns: [] };
      byName.set(name, doc);
    }
    doc.columns.push({ name: String(row.column_name), type: String(row.data_type) });
  }
  return [...byName.values()];
}

/** Rows such as "| `invocation` | dbt invocation: … |" in README's store section; `a` / `b` rows name two. */
export function readmeDescriptions(readme: string): Map<string, string> {
  const start = readme.indexOf('## The store');
  const end = readme.indexOf('\n## ', start + 1);
  const section = start < 0 ? '' : readme.slice(start, end < 0 ? undefined : end);
  const found = new Map<string, string>();
  for (const line of section.split('\n')) {
    const cells = /^\|\s*(`[^|]+`(?:\s*\/\s*`[^|]+`)*)\s*\|\s*(.+?)\s*\|\s*$/.exec(line);
    if (!cells) continue;
    const names = [...cells[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    for (const name of names) found.set(name, cells[2]!);
  }
  return found;
}

export function readReadme(): string {
  try {
    return readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  } catch {
    return '';
  }
}
