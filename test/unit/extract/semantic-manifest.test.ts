import { describe, expect, it } from 'vitest';
import { extractSemanticManifest } from '../../../src/extract/index.js';
import { bytes } from './synthetic.js';

describe('extractSemanticManifest (synthetic)', () => {
  const semantic = {
    semantic_models: [{ name: 'orders', node_relation: { alias: 'orders' }, entities: [], measures: [{ name: 'revenue', agg: 'sum' }], dimensions: [] }],
    metrics: [{ name: 'revenue', type: 'simple', type_params: { measure: { name: 'revenue' } } }],
    saved_queries: [{ name: 'weekly_revenue', query_params: { metrics: ['revenue'] } }],
    project_configuration: { time_spine_table_configurations: [] },
  };

  it('gives a row per definition with its JSON, under the invocation the archive gives', () => {
    const extract = extractSemanticManifest(bytes(semantic), { invocationId: 'from-manifest' });
    expect(extract.definitions.map((d) => [d.invocation_id, d.kind, d.name])).toEqual([
      ['from-manifest', 'semantic_model', 'orders'],
      ['from-manifest', 'metric', 'revenue'],
      ['from-manifest', 'saved_query', 'weekly_revenue'],
      ['from-manifest', 'project_configuration', 'project_configuration'],
    ]);
    expect(JSON.parse(extract.definitions[1]!.definition)).toEqual(semantic.metrics[0]);
  });

  it('needs an invocation id, as the file has none', () => {
    expect(() => extractSemanticManifest(bytes(semantic))).toThrow(/names no invocation/);
  });
});
