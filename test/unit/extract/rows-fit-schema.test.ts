import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance, type DuckDBAppender, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  extractCatalog,
  extractManifest,
  extractRunResults,
  extractSemanticManifest,
  extractFreshness,
  extractSources,
  readHeader,
  type Cell,
} from '../../../src/extract/index.js';
import type { ArtifactType } from '../../../src/vocab/index.js';
import { planNodeBlocks, type NodeMember } from '../../../src/store/ingest/node-blocks.js';
import { corpusArtifacts, hasCorpus } from '../../helpers/corpus.js';

/**
 * The contract between extract and the store: each row's keys are its table's columns in order,
 * each value fits its column's type, and DuckDB's Appender takes the rows as they are. Checked
 * on one real artifact of every type and schema version in the corpus.
 */
const SCHEMA_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../schema');

type Rows = Map<string, Record<string, Cell>[]>;

function add(rows: Rows, table: string, row: object): void {
  const list = rows.get(table) ?? [];
  list.push({ ...(row as Record<string, Cell>) });
  rows.set(table, list);
}

function rowsOf(type: ArtifactType, buf: Buffer): Rows {
  const rows: Rows = new Map();
  const options = { invocationId: 'archive-assigned' };
  switch (type) {
    case 'manifest': {
      const extract = extractManifest(buf, options);
      const seenCode = new Set<string>();
      const members: NodeMember[] = [];
      add(rows, 'invocation', extract.invocation);
      for (const entry of extract.entries()) {
        add(rows, entry.kind === 'node' ? 'node_version' : 'macro_version', entry.version);
        add(rows, entry.kind === 'node' ? 'node_invocation' : 'macro_invocation', entry.invocation);
        if (entry.kind === 'node') for (const edge of entry.dependsOn) add(rows, 'node_depends_on', edge);
        // What the store writes under the node_invocation and node_depends_on views (src/store/ingest/artifact-rows.ts).
        if (entry.kind === 'node') {
          members.push({ ...entry.invocation, macros: entry.dependsOn.filter((d) => d.kind === 'macro').map((d) => d.depends_on_id) });
          for (const edge of entry.dependsOn)
            if (edge.kind === 'node') add(rows, 'node_version_edge', { node_version_id: entry.invocation.node_version_id, depends_on_id: edge.depends_on_id });
        }
        // Content-addressed: one row per distinct text, as the store's writer keeps it.
        if (entry.kind === 'node' && entry.compiledCode && !seenCode.has(entry.compiledCode.compiled_code_id)) {
          seenCode.add(entry.compiledCode.compiled_code_id);
          add(rows, 'compiled_code', entry.compiledCode);
        }
      }
      const blocks = planNodeBlocks(members);
      for (const block of blocks.blocks) {
        add(rows, 'invocation_node_block', { invocation_id: 'archive-assigned', block_id: block.blockId });
        for (const row of block.rows) add(rows, 'node_block', row);
      }
      for (const set of blocks.macroSets) for (const macro of set.macros) add(rows, 'macro_set', { macro_set_id: set.macroSetId, depends_on_id: macro });
      return rows;
    }
    case 'run_results': {
      const extract = extractRunResults(buf, options);
      add(rows, 'invocation', extract.invocation);
      extract.results.forEach((row) => add(rows, 'run_result', row));
      return rows;
    }
    case 'sources':
    case 'freshness': {
      const extract = type === 'sources' ? extractSources(buf, options) : extractFreshness(buf, options);
      add(rows, 'invocation', extract.invocation);
      extract.freshness.forEach((row) => add(rows, 'source_freshness', row));
      return rows;
    }
    case 'catalog': {
      const extract = extractCatalog(buf, options);
      add(rows, 'invocation', extract.invocation);
      for (const entry of extract.entries()) {
        add(rows, 'catalog_table', entry.table);
        entry.columns.forEach((row) => add(rows, 'catalog_column', row));
      }
      return rows;
    }
    case 'semantic_manifest': {
      extractSemanticManifest(buf, options).definitions.forEach((row) => add(rows, 'semantic_definition', row));
      return rows;
    }
  }
}

/** One artifact per type and schema version: enough to meet every shape without the whole corpus. */
function sampleArtifacts(): string[] {
  const chosen = new Map<string, string>();
  for (const file of corpusArtifacts()) {
    const key = `${path.basename(file)} ${readHeader(readFileSync(file)).schemaVersion}`;
    if (!chosen.has(key)) chosen.set(key, file);
  }
  return [...chosen.values()];
}

function checkValue(table: string, column: string, type: string, value: Cell): void {
  const where = `${table}.${column}`;
  if (value === null) return;
  if (type === 'BIGINT' || type === 'INTEGER') expect(Number.isSafeInteger(value), `${where} = ${value}`).toBe(true);
  else if (type === 'DOUBLE') expect(typeof value, where).toBe('number');
  else if (type === 'BOOLEAN') expect(typeof value, where).toBe('boolean');
  else expect(typeof value, where).toBe('string');
  if (type === 'JSON') expect(() => JSON.parse(String(value)), where).not.toThrow();
}

function appendCell(appender: DuckDBAppender, value: Cell): void {
  if (value === null) appender.appendNull();
  else if (typeof value === 'string') appender.appendVarchar(value);
  else if (typeof value === 'boolean') appender.appendBoolean(value);
  else appender.appendDouble(value);
}

describe('rows fit schema/001-tables.sql', () => {
  let connection: DuckDBConnection;
  const columns = new Map<string, { name: string; type: string }[]>();
  /** node_invocation and node_depends_on: extract's rows have their columns, the store writes the tables under them. */
  const views = new Set<string>();

  beforeAll(async () => {
    const instance = await DuckDBInstance.create(':memory:');
    connection = await instance.connect();
    for (const file of readdirSync(SCHEMA_DIR)
      .filter((f) => f.endsWith('.sql'))
      .sort()) {
      await connection.run(readFileSync(path.join(SCHEMA_DIR, file), 'utf8'));
    }
    const reader = await connection.runAndReadAll(
      "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'main' ORDER BY table_name, ordinal_position",
    );
    for (const [table, name, type] of reader.getRows()) {
      const list = columns.get(String(table)) ?? [];
      list.push({ name: String(name), type: String(type) });
      columns.set(String(table), list);
    }
    for (const [view] of (await connection.runAndReadAll("SELECT table_name FROM information_schema.tables WHERE table_type = 'VIEW'")).getRows())
      views.add(String(view));
  });

  afterAll(() => connection?.closeSync());

  async function load(rows: Rows): Promise<void> {
    for (const [table, list] of rows) {
      const declared = columns.get(table);
      expect(declared, table).toBeDefined();
      const appender = views.has(table) ? null : await connection.createAppender(table);
      for (const row of list) {
        const keys = Object.keys(row);
        // The invocation facts are the artifact-derived prefix of the invocation table.
        expect(keys, table).toEqual(declared!.slice(0, keys.length).map((c) => c.name));
        declared!.forEach((column, i) => {
          const value = i < keys.length ? row[column.name]! : null;
          checkValue(table, column.name, column.type, value);
          if (appender) appendCell(appender, value);
        });
        appender?.endRow();
      }
      appender?.closeSync();
    }
  }

  it('declares the tables extract fills and the node view', () => {
    expect([...columns.keys()]).toEqual(
      expect.arrayContaining([
        'artifact_capture',
        'catalog_column',
        'catalog_table',
        'invocation',
        'macro_invocation',
        'macro_version',
        'node_depends_on',
        'node_invocation',
        'node_version',
        'run_result',
        'semantic_definition',
        'source_freshness',
        'node',
        'node_block',
        'invocation_node_block',
        'node_version_edge',
        'macro_set',
      ]),
    );
  });

  it.skipIf(!hasCorpus)('takes the rows of a real artifact of each type and schema version', async () => {
    for (const file of sampleArtifacts()) {
      await connection.run('BEGIN TRANSACTION');
      await load(rowsOf(path.basename(file, '.json') as ArtifactType, readFileSync(file)));
      await connection.run('ROLLBACK');
    }
  });
});
