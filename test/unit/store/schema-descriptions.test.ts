import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive } from '../../../src/archive/index.js';
import { openDatabase, syncStore } from '../../../src/store/index.js';
import { loadSchemaSql, sqlAsRead, withoutDescriptions } from '../../../src/store/schema.js';

/**
 * Descriptions of tables, views and columns live in schema/*.sql as `COMMENT ON`, read from
 * the database by every front end. They are no part of the schema version: describing a table
 * must not derive every user's store again, and a store written before gets them in place.
 */
const SCHEMA_DIR = path.join(import.meta.dirname, '../../../schema');
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

describe('descriptions in the schema', () => {
  it('leave the SQL the schema version is taken from as it was without them', () => {
    for (const name of readdirSync(SCHEMA_DIR).filter((n) => n.endsWith('.sql'))) {
      const sql = readFileSync(path.join(SCHEMA_DIR, name), 'utf8');
      const undescribed = sql
        .split('\n')
        .filter((line) => !line.startsWith('COMMENT ON '))
        .join('\n');
      expect(withoutDescriptions(sqlAsRead(sql)), name).toBe(sqlAsRead(undescribed));
    }
  });

  it('take out statements one after another, at the start, middle and end, and nothing quoted', () => {
    const sql = sqlAsRead(
      "COMMENT ON TABLE a IS 'x'; CREATE TABLE a (b INT); COMMENT ON TABLE a IS 'it''s; here';\nCOMMENT ON COLUMN a.b IS 'y';\nSELECT 'COMMENT ON TABLE a IS ''z'';'; COMMENT ON VIEW v IS 'w';",
    );
    expect(withoutDescriptions(sql)).toBe("CREATE TABLE a (b INT); SELECT 'COMMENT ON TABLE a IS ''z'';';");
  });

  it('describe every table and view of the store', () => {
    const sql = loadSchemaSql()
      .files.map((f) => f.sql)
      .join('\n');
    const created = [...sql.matchAll(/^CREATE (?:OR REPLACE )?(TABLE|VIEW)(?: IF NOT EXISTS)? (\w+)/gm)].map((m) => `${m[1]} ${m[2]}`);
    const described = loadSchemaSql().descriptions.statements.map((s) => /^COMMENT ON (\w+ \w+) IS/.exec(s)?.[1]);
    expect(created.filter((relation) => !described.includes(relation))).toEqual([]);
  });

  it('reach a store written with other descriptions at its next write, which derives nothing again', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-descriptions-'));
    roots.push(root);
    const backend = await openArchive(path.join(root, 'archive'), { create: true });
    const file = path.join(root, 'store.duckdb');
    expect((await syncStore(backend, file, 'wait')).status).toBe('synced');
    const db = await openDatabase(file, 'write');
    try {
      // As a store of the previous release: the same schema, no descriptions and no stamp of them.
      for (const s of loadSchemaSql().descriptions.statements) await db.connection.run(s.replace(/ IS '(?:[^']|'')*';$/, ' IS NULL;'));
      await db.connection.run("DELETE FROM store_meta WHERE key = 'descriptions_version'");
    } finally {
      db.close();
    }
    expect(await describedTable(file, 'invocation')).toBeNull();
    expect((await syncStore(backend, file, 'wait')).status).toBe('synced');
    expect(await describedTable(file, 'invocation')).toMatch(/^One row per dbt invocation/);
    expect(await describedTable(file, 'v_test_history')).toMatch(/^Per test:/);
  });
});

async function describedTable(file: string, name: string): Promise<string | null> {
  const db = await openDatabase(file, 'read');
  try {
    const sql = 'SELECT comment FROM duckdb_tables() WHERE table_name = $1 UNION ALL SELECT comment FROM duckdb_views() WHERE view_name = $1';
    const value = (await db.connection.runAndReadAll(sql, [name])).getRows()[0]?.[0];
    return value === null || value === undefined ? null : String(value);
  } finally {
    db.close();
  }
}
