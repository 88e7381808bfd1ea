import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  extractCatalog,
  extractManifest,
  extractRunResults,
  extractSemanticManifest,
  extractSources,
  KNOWN_SCHEMA_VERSIONS,
  KNOWN_STATUSES,
  readHeader,
} from '../../../src/extract/index.js';
import type { ArtifactType } from '../../../src/vocab/index.js';
import { CORPUS_DIR, corpusArtifacts, corpusCases, hasCorpus } from '../../helpers/corpus.js';

/**
 * Every real artifact extracts without error, and its row counts equal counts taken here
 * straight from JSON.parse of the file (the extractors scan bytes instead). Keys the DDL states
 * but does not enforce are checked unique.
 */
type Json = Record<string, unknown>;
const obj = (value: unknown): Json => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const arr = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const values = (value: unknown): Json[] => Object.values(obj(value)).map(obj);

const files = corpusArtifacts();
const typeOf = (file: string) => path.basename(file, '.json') as ArtifactType;
const rel = (file: string) => path.relative(CORPUS_DIR, file);
// The archive gives unversioned artifacts an invocation id; any stands in for it here.
const options = { invocationId: 'archive-assigned' };

function tally(values: Iterable<string>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

function expectUnique(keys: string[], what: string): void {
  expect(new Set(keys).size, `${what} keys are unique`).toBe(keys.length);
}

const NODE_SECTIONS: Record<string, string | null> = {
  nodes: null,
  sources: 'source',
  exposures: 'exposure',
  metrics: 'metric',
  semantic_models: 'semantic_model',
  saved_queries: 'saved_query',
  unit_tests: 'unit_test',
  groups: 'group',
  functions: 'function',
  docs: 'doc',
};

/** dbt 1.2–1.3 wrote a null into some tests' depends_on.macros: it names nothing, so it is no edge. */
function distinctIds(list: unknown): number {
  return new Set(arr(list).filter((id) => typeof id === 'string')).size;
}

function expectedManifest(json: Json) {
  const types: string[] = [];
  let edges = 0;
  for (const [section, implied] of Object.entries(NODE_SECTIONS)) {
    for (const node of values(json[section])) {
      types.push(String(node.resource_type ?? implied));
      edges += distinctIds(obj(node.depends_on).nodes) + distinctIds(obj(node.depends_on).macros);
    }
  }
  const disabled = Array.isArray(json.disabled) ? json.disabled : Object.values(obj(json.disabled)).flatMap(arr);
  return { types: tally(types), disabled: disabled.length, macros: Object.keys(obj(json.macros)).length, edges };
}

function checkManifest(buf: Buffer, json: Json): void {
  const extract = extractManifest(buf, options);
  const expected = expectedManifest(json);
  const entries = [...extract.entries()];
  const nodes = entries.flatMap((e) => (e.kind === 'node' ? [e] : []));
  const enabled = nodes.filter((e) => !e.version.disabled);
  expect(tally(enabled.map((e) => e.version.resource_type))).toEqual(expected.types);
  expect(nodes.length - enabled.length).toBe(expected.disabled);
  expect(entries.length - nodes.length).toBe(expected.macros);
  expect(enabled.reduce((sum, e) => sum + e.dependsOn.length, 0)).toBe(expected.edges);
  expectUnique(
    nodes.map((e) => e.invocation.node_version_id),
    'node_invocation',
  );
  expectUnique(
    nodes.flatMap((e) => e.dependsOn.map((d) => `${d.unique_id} ${d.depends_on_id} ${d.kind}`)),
    'node_depends_on',
  );
  const metadata = obj(json.metadata);
  if (metadata.project_name) expect(extract.invocation.project_name).toBe(metadata.project_name);
  expect(extract.invocation.adapter_type).toBe(metadata.adapter_type ?? null);
}

/** Statuses as dbt wrote them, lower-cased; unversioned files are checked against the vocabulary only. */
function checkStatuses(rows: { status: string | null }[], json: Json): void {
  if (obj(json.metadata).dbt_schema_version) {
    expect(tally(rows.map((r) => String(r.status)))).toEqual(tally(arr(json.results).map((r) => String(obj(r).status).toLowerCase())));
  }
  for (const row of rows) expect(KNOWN_STATUSES).toContain(row.status);
}

function checkRunResults(buf: Buffer, json: Json): void {
  const extract = extractRunResults(buf, options);
  expect(extract.results.length).toBe(arr(json.results).length);
  expect(extract.invocation.result_count).toBe(arr(json.results).length);
  checkStatuses(extract.results, json);
  expectUnique(
    extract.results.map((r) => r.unique_id),
    'run_result',
  );
  // Commands are named as dbt's users type them; runs through a job server by the method they ran.
  const args = obj(json.args);
  const which = typeof args.rpc_method === 'string' ? args.rpc_method : args.which;
  const typed: Record<string, string> = {
    generate: 'docs generate',
    'docs.generate': 'docs generate',
    freshness: 'source freshness',
    'source-freshness': 'source freshness',
  };
  if (typeof which === 'string' && which !== 'rpc') expect(extract.invocation.command).toBe(typed[which] ?? which);
}

function checkSources(buf: Buffer, json: Json): void {
  const extract = extractSources(buf, options);
  expect(extract.freshness.length).toBe(arr(json.results).length);
  checkStatuses(extract.freshness, json);
  expectUnique(
    extract.freshness.map((r) => r.unique_id),
    'source_freshness',
  );
}

function checkCatalog(buf: Buffer, json: Json): void {
  const entries = [...extractCatalog(buf, options).entries()];
  const relations = [...values(json.nodes), ...values(json.sources)];
  expect(entries.length).toBe(relations.length);
  const columns = entries.flatMap((e) => e.columns);
  expect(columns.length).toBe(relations.reduce((sum, r) => sum + Object.keys(obj(r.columns)).length, 0));
  expectUnique(
    entries.map((e) => e.table.unique_id),
    'catalog_table',
  );
  expectUnique(
    columns.map((c) => `${c.unique_id} ${c.column_name}`),
    'catalog_column',
  );
}

function checkSemanticManifest(buf: Buffer, json: Json): void {
  const rows = extractSemanticManifest(buf, options).definitions;
  const expected = {
    semantic_model: arr(json.semantic_models).length,
    metric: arr(json.metrics).length,
    saved_query: arr(json.saved_queries).length,
    project_configuration: json.project_configuration ? 1 : 0,
  };
  const counted = tally(rows.map((r) => r.kind));
  for (const [kind, count] of Object.entries(expected)) expect(counted[kind] ?? 0, kind).toBe(count);
  expectUnique(
    rows.map((r) => `${r.kind} ${r.name}`),
    'semantic_definition',
  );
}

const CHECKS: Record<ArtifactType, (buf: Buffer, json: Json) => void> = {
  manifest: checkManifest,
  run_results: checkRunResults,
  sources: checkSources,
  catalog: checkCatalog,
  semantic_manifest: checkSemanticManifest,
  // Never met in the corpus (no real dbt v2 freshness.json): the same check would apply.
  freshness: checkSources,
};

describe.skipIf(!hasCorpus)('corpus: every artifact extracts and its counts match its JSON', () => {
  it.each(corpusCases(() => files.map((file) => [rel(file), file]), ['each artifact of the corpus, one test apiece', '']))('%s', (_name, file) => {
    const buf = readFileSync(file);
    CHECKS[typeOf(file)](buf, JSON.parse(buf.toString('utf8')) as Json);
  });

  it('covers every schema version we claim to read, and unversioned files', () => {
    const seen = new Set(files.map((file) => `${typeOf(file)} ${readHeader(readFileSync(file)).schemaVersion ?? 'none'}`));
    // No real dbt v2 freshness.json is in the corpus: test/e2e/freshness.test.ts reads a synthetic one.
    const notInCorpus = new Set(['freshness']);
    for (const [type, versions] of Object.entries(KNOWN_SCHEMA_VERSIONS).filter(([type]) => !notInCorpus.has(type))) {
      for (const version of versions) expect(seen, `${type} v${version}`).toContain(`${type} ${version}`);
      expect(seen, `${type} unversioned`).toContain(`${type} none`);
    }
  });
});
