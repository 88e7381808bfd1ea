import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AtticError } from '../../../src/errors.js';
import { extractManifest, type ManifestEntry, type NodeEntry } from '../../../src/extract/index.js';
import { sha256 } from '../../../src/vocab/index.js';
import { bytes, syntheticMetadata, syntheticModel } from './synthetic.js';

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

function nodes(entries: ManifestEntry[]): Map<string, NodeEntry> {
  const found = new Map<string, NodeEntry>();
  for (const entry of entries) if (entry.kind === 'node') found.set(`${entry.version.disabled ? 'disabled:' : ''}${entry.version.unique_id}`, entry);
  return found;
}

function syntheticV12(): Record<string, unknown> {
  return {
    metadata: syntheticMetadata('manifest', 12, { project_name: 'synthetic_project', adapter_type: 'duckdb', invocation_started_at: '2030-01-02T03:00:00Z' }),
    nodes: {
      'model.synthetic_project.orders': syntheticModel('orders', {
        depends_on: { nodes: ['source.synthetic_project.raw.orders'], macros: ['macro.synthetic_project.cents', 'macro.synthetic_project.cents'] },
        compiled_code: 'select 1 as orders_id',
        relation_name: '"db"."analytics"."orders"',
        access: 'protected',
        version: 2,
        constraints: [],
      }),
      'test.synthetic_project.not_null_orders_id.abc': {
        resource_type: 'test',
        unique_id: 'test.synthetic_project.not_null_orders_id.abc',
        name: 'not_null_orders_id',
        raw_code: '{{ test_not_null(**_dbt_generic_test_kwargs) }}',
        test_metadata: { name: 'not_null', kwargs: { column_name: 'id' }, namespace: null },
        column_name: 'id',
        attached_node: 'model.synthetic_project.orders',
        config: { materialized: 'test', severity: 'ERROR' },
        depends_on: { nodes: ['model.synthetic_project.orders'], macros: ['macro.dbt.test_not_null'] },
      },
    },
    sources: {
      'source.synthetic_project.raw.orders': {
        resource_type: 'source',
        unique_id: 'source.synthetic_project.raw.orders',
        name: 'orders',
        source_name: 'raw',
        identifier: 'raw_orders',
        loader: 'synthetic',
        loaded_at_field: '_loaded_at',
        freshness: { warn_after: { count: 1, period: 'day' } },
      },
    },
    macros: {
      'macro.synthetic_project.cents': {
        unique_id: 'macro.synthetic_project.cents',
        name: 'cents',
        macro_sql: '{% macro cents(x) %}{{ x }}*100{% endmacro %}',
        depends_on: { macros: [] },
      },
    },
    docs: {},
    exposures: {
      'exposure.synthetic_project.dash': {
        unique_id: 'exposure.synthetic_project.dash',
        name: 'dash',
        type: 'dashboard',
        owner: { email: 'a@example.com' },
        maturity: 'high',
        depends_on: { nodes: ['model.synthetic_project.orders'] },
      },
    },
    metrics: {},
    groups: {},
    semantic_models: {},
    saved_queries: {},
    unit_tests: {},
    disabled: {
      'model.synthetic_project.old': [
        syntheticModel('old', { config: { enabled: false }, depends_on: { nodes: ['model.synthetic_project.orders'], macros: [] } }),
      ],
    },
    parent_map: {},
    child_map: {},
  };
}

describe('extractManifest (v12, synthetic)', () => {
  const extract = extractManifest(bytes(syntheticV12()));
  const entries = [...extract.entries()];
  const byId = nodes(entries);

  it('gives the invocation facts of its metadata', () => {
    expect(extract.invocation).toMatchObject({
      invocation_id: 'synthetic-invocation',
      project_name: 'synthetic_project',
      adapter_type: 'duckdb',
      dbt_version: '1.99.0-synthetic',
      // Never the manifest's invocation_started_at: a partial parse keeps an old one (manifest-start.test.ts).
      started_at: null,
    });
  });

  it('gives a node row per resource, and macros apart', () => {
    expect([...byId.keys()].sort()).toEqual([
      'disabled:model.synthetic_project.old',
      'exposure.synthetic_project.dash',
      'model.synthetic_project.orders',
      'source.synthetic_project.raw.orders',
      'test.synthetic_project.not_null_orders_id.abc',
    ]);
    expect(entries.filter((e) => e.kind === 'macro').map((e) => e.version.unique_id)).toEqual(['macro.synthetic_project.cents']);
  });

  it('shapes common fields into columns', () => {
    const model = byId.get('model.synthetic_project.orders')!.version;
    expect(model).toMatchObject({
      resource_type: 'model',
      path: 'models/orders.sql',
      materialization: 'view',
      identifier: 'orders',
      checksum: 'checksum-of-orders',
      access: 'protected',
      version: '2',
      disabled: false,
      attributes: '{"constraints":[]}',
    });
    expect(model).not.toHaveProperty('compiled_code');
    expect(byId.get('model.synthetic_project.orders')!.invocation).toMatchObject({
      relation_name: '"db"."analytics"."orders"',
      compiled_code_id: sha256('select 1 as orders_id'),
    });
    expect(byId.get('model.synthetic_project.orders')!.compiledCode).toEqual({
      compiled_code_id: sha256('select 1 as orders_id'),
      code: 'select 1 as orders_id',
    });
  });

  it('keeps what only a resource type has in attributes', () => {
    const test = JSON.parse(byId.get('test.synthetic_project.not_null_orders_id.abc')!.version.attributes ?? 'null');
    expect(test).toEqual({
      test_metadata: { name: 'not_null', kwargs: { column_name: 'id' }, namespace: null },
      column_name: 'id',
      attached_node: 'model.synthetic_project.orders',
    });
    const source = byId.get('source.synthetic_project.raw.orders')!.version;
    expect(source.identifier).toBe('raw_orders');
    expect(JSON.parse(source.attributes ?? 'null')).toMatchObject({ source_name: 'raw', loader: 'synthetic', loaded_at_field: '_loaded_at' });
    expect(JSON.parse(byId.get('exposure.synthetic_project.dash')!.version.attributes ?? 'null')).toMatchObject({ type: 'dashboard', maturity: 'high' });
  });

  it('gives each dependency edge once, nodes and macros', () => {
    expect(byId.get('model.synthetic_project.orders')!.dependsOn.map((d) => `${d.kind} ${d.depends_on_id}`)).toEqual([
      'node source.synthetic_project.raw.orders',
      'macro macro.synthetic_project.cents',
    ]);
  });

  it('flags disabled nodes, with no edges', () => {
    const old = byId.get('disabled:model.synthetic_project.old')!;
    expect(old.version.disabled).toBe(true);
    expect(old.dependsOn).toEqual([]);
  });

  it('links each node version to the invocation', () => {
    const model = byId.get('model.synthetic_project.orders')!;
    expect(model.invocation).toEqual({
      invocation_id: 'synthetic-invocation',
      unique_id: model.version.unique_id,
      node_version_id: model.version.node_version_id,
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      relation_name: '"db"."analytics"."orders"',
      compiled_code_id: sha256('select 1 as orders_id'),
    });
  });
});

describe('extractManifest across invocations', () => {
  it('gives an untouched node the same version id in the next parse', () => {
    const first = syntheticV12();
    const second = syntheticV12();
    second.metadata = syntheticMetadata('manifest', 12, { invocation_id: 'next-invocation', project_name: 'synthetic_project' });
    const secondNodes = second.nodes as Record<string, Record<string, unknown>>;
    secondNodes['model.synthetic_project.orders']!.created_at = 1_900_000_000;
    secondNodes['test.synthetic_project.not_null_orders_id.abc']!.raw_code = '{{ test_not_null(**kwargs) }}';
    const a = nodes([...extractManifest(bytes(first)).entries()]);
    const b = nodes([...extractManifest(bytes(second)).entries()]);
    const id = (m: Map<string, NodeEntry>, key: string) => m.get(key)!.version.node_version_id;
    expect(id(b, 'model.synthetic_project.orders')).toBe(id(a, 'model.synthetic_project.orders'));
    expect(id(b, 'test.synthetic_project.not_null_orders_id.abc')).not.toBe(id(a, 'test.synthetic_project.not_null_orders_id.abc'));
    expect(b.get('model.synthetic_project.orders')!.invocation.invocation_id).toBe('next-invocation');
  });
});

describe('extractManifest (old shapes, synthetic)', () => {
  const v3 = {
    metadata: syntheticMetadata('manifest', 3, { project_id: md5('old_project'), adapter_type: 'postgres' }),
    nodes: {
      'model.old_project.a': {
        resource_type: 'model',
        unique_id: 'model.old_project.a',
        raw_sql: 'select 1',
        compiled_sql: 'select 1 -- compiled',
        config: { materialized: 'table' },
      },
      'seed.old_project.s': { resource_type: 'seed', unique_id: 'seed.old_project.s', raw_sql: '', config: {} },
    },
    macros: { 'macro.dbt.x': { unique_id: 'macro.dbt.x', macro_sql: '' } },
    docs: { 'old_project.overview': { unique_id: 'old_project.overview', name: 'overview', block_contents: '# Hello' } },
    disabled: [{ resource_type: 'model', unique_id: 'model.old_project.off', raw_sql: 'select 0', config: { enabled: false } }],
  };
  const extract = extractManifest(bytes(v3));
  const byId = nodes([...extract.entries()]);

  it('reads raw_sql and compiled_sql, and calls the code SQL', () => {
    expect(byId.get('model.old_project.a')!.version).toMatchObject({ raw_code: 'select 1', language: 'sql', materialization: 'table' });
    expect(byId.get('model.old_project.a')!.compiledCode?.code).toBe('select 1 -- compiled');
    expect(byId.get('seed.old_project.s')!.version.language).toBeNull();
  });

  it('reads docs without a resource type and the v1–v3 disabled list', () => {
    expect(byId.get('old_project.overview')!.version).toMatchObject({ resource_type: 'doc', raw_code: '# Hello' });
    expect(byId.get('disabled:model.old_project.off')!.version.disabled).toBe(true);
  });

  it('finds the project name from project_id, the md5 of the name', () => {
    expect(extract.invocation.project_name).toBe('old_project');
  });
});

describe('extractManifest errors', () => {
  it('refuses an unknown schema version before reading nodes', () => {
    expect(() => extractManifest(bytes({ metadata: syntheticMetadata('manifest', 13), nodes: {} }))).toThrow(/v13/);
  });

  it('names a truncated manifest when iteration reaches the cut', () => {
    const whole = bytes(syntheticV12()).toString();
    const cut = Buffer.from(whole.slice(0, whole.indexOf('"sources"') + 20));
    const extract = extractManifest(cut);
    let error: unknown;
    try {
      for (const _ of extract.entries()) void _;
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AtticError);
    expect((error as AtticError).code).toBe('artifact-unreadable');
  });
});
