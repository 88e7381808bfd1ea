import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { synthesizePerNodeState } from '../../../src/state/synthesize.js';
import { file } from '../../helpers/archive-builder.js';

/**
 * `state --per-node` against what real dbt 1.12 showed (issue 43, test/e2e/real-dbt-slim-ci):
 * an ephemeral model, which never has a result of its own, was left out of the state, so dbt
 * took it and everything downstream for new; and a node built before a macro it calls was
 * edited kept its old entry beside the newest manifest's macros, so dbt saw no change once that
 * manifest was filed. The manifests here are ours, made to order, in dbt's v12 shape.
 */
const SCHEMA = 'https://schemas.getdbt.com/dbt/manifest/v12.json';
const model = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  unique_id: `model.shop.${name}`,
  resource_type: 'model',
  name,
  raw_code: `select 1 as ${name}`,
  checksum: { name: 'sha256', checksum: name },
  config: { materialized: 'table' },
  depends_on: { nodes: [], macros: [] },
  ...extra,
});
function manifest(id: string, macroSql: string, nodes: Record<string, unknown>[]): string {
  return JSON.stringify({
    metadata: { dbt_schema_version: SCHEMA, dbt_version: '1.12.6', invocation_id: id, generated_at: '2026-12-01T00:00:00Z' },
    nodes: Object.fromEntries(nodes.map((n) => [n.unique_id, n])),
    macros: { 'macro.shop.cents': { unique_id: 'macro.shop.cents', macro_sql: macroSql, depends_on: { macros: [] } } },
    sources: {},
    exposures: {},
    metrics: {},
    groups: {},
    selectors: {},
    disabled: {},
    parent_map: {},
    child_map: {},
    group_map: {},
    semantic_models: {},
    unit_tests: {},
    saved_queries: {},
  });
}
function results(id: string, ids: string[], at: string): string {
  return JSON.stringify({
    metadata: { dbt_schema_version: 'https://schemas.getdbt.com/dbt/run-results/v6.json', dbt_version: '1.12.6', invocation_id: id, generated_at: at },
    args: { which: 'build', target: 'dev' },
    elapsed_time: 1,
    results: ids.map((unique_id) => ({
      unique_id,
      status: 'success',
      execution_time: 0.1,
      timing: [],
      thread_id: 't',
      message: null,
      failures: null,
      adapter_response: {},
    })),
  });
}

const EPHEMERAL = model('int_lines', { config: { materialized: 'ephemeral' } });
const USES_BOTH = model('fct_orders', { depends_on: { nodes: ['model.shop.int_lines'], macros: ['macro.shop.cents'] } });
const PLAIN = model('dim_products');
const BUILD = '0d0d0000-0000-4000-8000-0000000000b1';
const PARSE = '0d0d0000-0000-4000-8000-0000000000b2';

async function history(parseMacro: string, parseEphemeral = EPHEMERAL): Promise<MemBackend> {
  const backend = new MemBackend();
  await file(backend, {
    invocationId: BUILD,
    capturedAt: '2026-12-01T01:00:00.000Z',
    bytes: {
      manifest: manifest(BUILD, 'round({{ x }} / 100, 2)', [EPHEMERAL, USES_BOTH, PLAIN]),
      run_results: results(BUILD, ['model.shop.fct_orders', 'model.shop.dim_products'], '2026-12-01T01:00:00Z'),
    },
  });
  // The CI job's parse of the changed project, filed before `state --per-node` runs.
  await file(backend, {
    invocationId: PARSE,
    capturedAt: '2026-12-01T02:00:00.000Z',
    artifacts: ['manifest'],
    bytes: { manifest: manifest(PARSE, parseMacro, [parseEphemeral, USES_BOTH, PLAIN]) },
  });
  return backend;
}

describe('state --per-node and what a build inlined', () => {
  it("keeps an ephemeral model (the newest manifest's entry), so dbt does not take it for new", async () => {
    const state = await synthesizePerNodeState(await history('round({{ x }} / 100, 2)'), {});
    expect(Object.keys(state.manifest.nodes as object).sort()).toEqual(['model.shop.dim_products', 'model.shop.fct_orders', 'model.shop.int_lines']);
    expect(state.provenance.left_out).toEqual([]);
  });

  it('leaves out a node built with a macro edited since, so dbt builds it', async () => {
    const state = await synthesizePerNodeState(await history('cast({{ x }} / 100 as decimal(18, 2))'), {});
    expect(state.provenance.left_out).toEqual(['model.shop.fct_orders']);
    expect(Object.keys(state.provenance.nodes)).toEqual(['model.shop.dim_products']);
  });

  it('leaves out a node built with an ephemeral model edited since', async () => {
    const state = await synthesizePerNodeState(await history('round({{ x }} / 100, 2)', { ...EPHEMERAL, raw_code: 'select 2 as int_lines' }), {});
    expect(state.provenance.left_out).toEqual(['model.shop.fct_orders']);
  });
});
