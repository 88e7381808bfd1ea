import { describe, expect, it } from 'vitest';
import { EXCLUDED_NODE_FIELDS, macroVersionId, nodeDefinition, nodeVersionId } from '../../../src/extract/node-version.js';
import { syntheticModel } from './synthetic.js';

describe('nodeVersionId', () => {
  const model = syntheticModel('orders');

  it('is the same for the same definition in another key order', () => {
    const reordered = Object.fromEntries(Object.entries(model).reverse());
    expect(nodeVersionId(reordered, false)).toBe(nodeVersionId(model, false));
  });

  it('ignores every excluded field', () => {
    const compiled = {
      ...model,
      created_at: 1_800_000_000,
      root_path: '/home/someone/project',
      build_path: 'target/run/orders.sql',
      compiled_path: 'target/compiled/orders.sql',
      deferred: true,
      compiled: true,
      compiled_code: 'select 1 as orders_id',
      extra_ctes: [],
      extra_ctes_injected: true,
      relation_name: '"db"."analytics"."orders"',
      depends_on: { nodes: [], macros: ['macro.dbt.materialization_view_default'] },
    };
    expect(nodeVersionId(compiled, false)).toBe(nodeVersionId(model, false));
  });

  it('changes with the definition', () => {
    const base = nodeVersionId(model, false);
    expect(nodeVersionId({ ...model, raw_code: 'select 2 as orders_id' }, false)).not.toBe(base);
    expect(nodeVersionId({ ...model, config: { enabled: true, materialized: 'table' } }, false)).not.toBe(base);
    expect(nodeVersionId({ ...model, description: 'All orders.' }, false)).not.toBe(base);
    expect(nodeVersionId({ ...model, depends_on: { nodes: ['model.synthetic_project.customers'], macros: [] } }, false)).not.toBe(base);
  });

  it('tells a disabled entry from an enabled one', () => {
    expect(nodeVersionId(model, true)).not.toBe(nodeVersionId(model, false));
  });

  it('gives each exclusion a reason', () => {
    for (const reason of Object.values(EXCLUDED_NODE_FIELDS)) expect(reason.length).toBeGreaterThan(10);
    expect(Object.keys(nodeDefinition(model))).not.toContain('created_at');
  });
});

describe('macroVersionId', () => {
  it('ignores parse time and machine path but not the SQL', () => {
    const macro = { unique_id: 'macro.p.m', macro_sql: '{% macro m() %}1{% endmacro %}', created_at: 1, root_path: '/a' };
    expect(macroVersionId({ ...macro, created_at: 2, root_path: '/b' })).toBe(macroVersionId(macro));
    expect(macroVersionId({ ...macro, macro_sql: '{% macro m() %}2{% endmacro %}' })).not.toBe(macroVersionId(macro));
  });
});
