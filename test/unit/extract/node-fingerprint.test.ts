import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createFingerprintContext, type FingerprintManifest } from '../../../src/extract/fingerprint-context.js';
import { describeFingerprint, fingerprintNode, fingerprintProject, type FingerprintInput } from '../../../src/extract/node-fingerprint.js';

// Small made-up nodes and macros, shaped like manifest entries: each test changes one field.
const macros = {
  'macro.p.outer': { macro_sql: '{% macro outer() %}{{ middle() }}{% endmacro %}', depends_on: { macros: ['macro.p.middle'] } },
  'macro.p.middle': { macro_sql: '{% macro middle() %}{{ inner() }}{% endmacro %}', depends_on: { macros: ['macro.p.inner'] } },
  'macro.p.inner': { macro_sql: '{% macro inner() %} 1 {% endmacro %}', depends_on: { macros: [] } },
  'macro.p.other': { macro_sql: '{% macro other() %} 2 {% endmacro %}', depends_on: { macros: [] } },
};

function fingerprintWith(node: FingerprintInput, manifest: FingerprintManifest = { macros }): string {
  return fingerprintNode(node, createFingerprintContext({ metadata: { adapter_type: 'postgres' }, ...manifest }));
}

function model(overrides: Partial<FingerprintInput> = {}): FingerprintInput {
  return {
    resource_type: 'model',
    raw_code: "select id, amount from {{ ref('orders') }}",
    language: 'sql',
    config: { materialized: 'table', schema: 'dbt_alice_marts', tags: [], meta: {}, on_schema_change: 'ignore' },
    unrendered_config: { materialized: 'table', schema: "{{ 'marts' }}" },
    depends_on: { macros: [] },
    ...overrides,
  };
}

describe('fingerprintNode: code', () => {
  it('ignores a cosmetic edit and sees a semantic one', () => {
    const base = fingerprintWith(model());
    expect(fingerprintWith(model({ raw_code: "SELECT id,amount\nFROM {{ref('orders')}} -- note" }))).toBe(base);
    expect(fingerprintWith(model({ raw_code: "select id from {{ ref('orders') }}" }))).not.toBe(base);
  });

  it('reads raw_sql from manifests before v7 as raw_code', () => {
    const { raw_code: code, ...rest } = model();
    expect(fingerprintWith({ ...rest, raw_sql: code })).toBe(fingerprintWith(model()));
  });

  it('lets python keep its indentation but not its trailing blanks', () => {
    const python = (raw_code: string) => fingerprintWith(model({ language: 'python', raw_code }));
    const base = python('def model(dbt, s):\n    return dbt.ref("a")\n');
    expect(python('def model(dbt, s):   \r\n    return dbt.ref("a")\n\n')).toBe(base);
    expect(python('def model(dbt, s):\n  return dbt.ref("a")\n')).not.toBe(base);
  });
});

describe('fingerprintNode: macros', () => {
  const edited = { ...macros, 'macro.p.inner': { ...macros['macro.p.inner'], macro_sql: '{% macro inner() %} 3 {% endmacro %}' } };
  const reformatted = { ...macros, 'macro.p.inner': { ...macros['macro.p.inner'], macro_sql: '{%- macro inner() -%}\n  1\n{%- endmacro %}' } };
  const callsOuter = model({ raw_code: "select {{ outer() }} from {{ ref('orders') }}", depends_on: { macros: ['macro.p.outer'] } });
  const callsOther = model({ raw_code: "select {{ p.other() }} from {{ ref('orders') }}", depends_on: { macros: ['macro.p.other'] } });

  it('changes every model that reaches an edited macro, through macros that call it', () => {
    expect(fingerprintWith(callsOuter, { macros: edited })).not.toBe(fingerprintWith(callsOuter));
  });

  it('ignores the helpers dbt lists in depends_on.macros only after running the node', () => {
    const afterRun = { ...callsOuter, depends_on: { macros: ['macro.p.outer', 'macro.p.other'] } };
    expect(fingerprintWith(afterRun)).toBe(fingerprintWith(callsOuter));
  });

  it('counts a macro the code calls, not one it only mentions or one whose name is part of a longer name', () => {
    const lists = ['macro.p.outer', 'macro.p.other', 'macro.p.middle', 'macro.p.inner'];
    const code = [
      '-- outer is retired; other_v2() replaced other',
      "select {{ p.other_v2() }}, {{ my_middle() }}, {{ inner ( ) }} from {{ ref('orders') }}",
    ].join('\n');
    const node = model({ raw_code: code, depends_on: { macros: lists } });
    const counted = describeFingerprint(node, createFingerprintContext({ macros })).macros.map(([id]) => id);
    expect(counted).toEqual(['macro.p.inner']);
    expect(fingerprintWith(node, { macros: { ...macros, 'macro.p.outer': { ...macros['macro.p.outer'], macro_sql: 'changed' } } })).toBe(fingerprintWith(node));
    expect(fingerprintWith(node, { macros: edited })).not.toBe(fingerprintWith(node));
  });

  it('changes no model that does not reach it', () => {
    expect(fingerprintWith(callsOther, { macros: edited })).toBe(fingerprintWith(callsOther));
  });

  it('ignores a reformatted macro', () => {
    expect(fingerprintWith(callsOuter, { macros: reformatted })).toBe(fingerprintWith(callsOuter));
  });

  it('lists the closure, survives recursion and notes macros the manifest lacks', () => {
    const loop = {
      'macro.p.a': { macro_sql: 'a', depends_on: { macros: ['macro.p.b'] } },
      'macro.p.b': { macro_sql: 'b', depends_on: { macros: ['macro.p.a', 'macro.p.gone'] } },
    };
    const context = createFingerprintContext({ macros: loop });
    const parts = describeFingerprint(model({ raw_code: 'select {{ a() }}', depends_on: { macros: ['macro.p.a'] } }), context);
    expect(parts.macros.map(([id, hash]) => [id, hash === null])).toEqual([
      ['macro.p.a', false],
      ['macro.p.b', false],
      ['macro.p.gone', true],
    ]);
  });
});

describe('fingerprintNode: config', () => {
  // Computed in each test, not while the suite is collected: a broken fingerprint then fails tests, not the file.
  const base = (): string => fingerprintWith(model());
  const withConfig = (config: Record<string, unknown>, unrendered: Record<string, unknown> = {}) =>
    fingerprintWith(model({ config: { ...model().config, ...config }, unrendered_config: { ...model().unrendered_config, ...unrendered } }));

  it.each([
    ['materialized', { materialized: 'incremental' }, { materialized: 'incremental' }],
    ['unique_key', { unique_key: 'id' }, { unique_key: 'id' }],
    ['incremental_strategy', { incremental_strategy: 'merge' }, {}],
    ['partition_by', { partition_by: { field: 'day' } }, { partition_by: { field: 'day' } }],
    ['post-hook', { 'post-hook': [{ sql: 'vacuum {{ this }}', transaction: true, index: 1 }] }, {}],
    ['configured schema', {}, { schema: "{{ 'finance' }}" }],
  ])('counts %s', (_key, config, unrendered) => {
    expect(withConfig(config, unrendered)).not.toBe(base());
  });

  it.each([
    ['tags', { tags: ['nightly'] }],
    ['meta', { meta: { owner: 'x' } }],
    ['docs', { docs: { show: false } }],
    ['persist_docs', { persist_docs: { relation: true } }],
    ['grants', { grants: { select: ['reporter'] } }],
    ['a rendered schema for another target', { schema: 'dbt_prod_marts' }],
    ['an implicit default written out', { on_configuration_change: 'apply' }],
  ])('ignores %s', (_key, config) => {
    expect(withConfig(config)).toBe(base());
  });

  it('takes a key set in the code from the code, not from its value rendered for one target', () => {
    const snapshot = (schema: string) =>
      fingerprintWith({
        resource_type: 'snapshot',
        raw_code: "{{ config(strategy='check', target_schema=schema) }} select 1",
        config: { strategy: 'check', target_schema: schema },
        unrendered_config: { strategy: 'check', target_schema: schema },
      });
    expect(snapshot('dbt_alice')).toBe(snapshot('dbt_bob'));
  });

  it('reads hooks from either shape and ignores their formatting', () => {
    const asObjects = withConfig({}, { 'post-hook': [{ sql: 'GRANT select ON {{ this }} TO r', transaction: true }] });
    const asString = withConfig({ 'post-hook': [] }, { 'post-hook': 'grant select on {{this}} to r' });
    expect(asString).toBe(asObjects);
    expect(withConfig({}, { 'post-hook': 'grant select on {{this}} to s' })).not.toBe(asObjects);
  });
});

describe('fingerprintNode: contract, tests, seeds', () => {
  const columns = (type: string) => ({ id: { name: 'id', data_type: type, constraints: [] } });

  it('counts column types only when the contract is enforced', () => {
    const node = (enforced: boolean, type: string) => fingerprintWith(model({ contract: { enforced }, columns: columns(type) }));
    expect(node(true, 'bigint')).not.toBe(node(true, 'int'));
    expect(node(false, 'bigint')).toBe(node(false, 'int'));
  });

  it('reads what a generic test checks from test_metadata', () => {
    const test = (values: string[]) =>
      fingerprintWith({
        resource_type: 'test',
        raw_code: '{{ test_accepted_values(**_dbt_generic_test_kwargs) }}',
        test_metadata: { name: 'accepted_values', namespace: null, kwargs: { column_name: 'status', values } },
      });
    expect(test(['a', 'b'])).not.toBe(test(['a']));
  });

  it('takes a seed from its file checksum, or from its path when dbt stored no hash', () => {
    const seed = (name: string, checksum: string) => fingerprintWith({ resource_type: 'seed', raw_code: '', checksum: { name, checksum } });
    expect(seed('sha256', 'aa')).not.toBe(seed('sha256', 'bb'));
    expect(seed('path', 'seeds/big.csv')).toBe(seed('path', 'seeds/big.csv'));
    expect(seed('path', 'seeds/big.csv')).not.toBe(seed('sha256', 'seeds/big.csv'));
    const parts = describeFingerprint({ resource_type: 'seed', checksum: { name: 'path', checksum: 'x' } }, createFingerprintContext({}));
    expect(parts.code.note).toMatch(/path/);
  });

  it('tolerates nodes with fields missing, null or of the wrong shape', () => {
    const odd = [{}, { config: null, unrendered_config: null, depends_on: null, checksum: null, contract: null }];
    const wrong: unknown = { depends_on: 'x', config: [], columns: 3, test_metadata: 'y', raw_code: 5 };
    for (const node of [...odd, wrong as FingerprintInput]) expect(fingerprintWith(node, {})).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('fingerprintNode: what a dbt release writes on its own', () => {
  const on =
    (adapter: string) =>
    (node: FingerprintInput): string =>
      fingerprintNode(node, createFingerprintContext({ metadata: { adapter_type: adapter }, macros }));
  const quoting = (value: unknown): FingerprintInput => model({ config: { ...model().config, quoting: value } });

  it.each([
    ['snowflake', { database: false, identifier: false, schema: false, snowflake_ignore_case: false }],
    ['postgres', { database: true, identifier: true, schema: true, snowflake_ignore_case: false }],
    ['duckdb', { database: true, identifier: true, schema: true }],
  ])("ignores the adapter's default quoting written out (dbt Fusion) on %s", (adapter, written) => {
    expect(on(adapter)(quoting(written))).toBe(on(adapter)(quoting({})));
    expect(on(adapter)(quoting(written))).toBe(on(adapter)(model()));
  });

  it('sees quoting that differs from the adapter default', () => {
    expect(on('snowflake')(quoting({ identifier: true }))).not.toBe(on('snowflake')(quoting({})));
    expect(on('postgres')(quoting({ identifier: false }))).not.toBe(on('postgres')(quoting({})));
  });

  it("ignores a constraint's warning flags and the empty fields newer dbt adds, not what it constrains", () => {
    const contracted = (constraint: Record<string, unknown>): FingerprintInput =>
      model({ contract: { enforced: true }, columns: { id: { name: 'id', data_type: 'int' } }, constraints: [constraint] });
    const base = on('postgres')(contracted({ type: 'primary_key', columns: ['id'] }));
    expect(
      on('postgres')(
        contracted({ type: 'primary_key', columns: ['id'], warn_unenforced: false, warn_unsupported: true, name: null, to: null, to_columns: [] }),
      ),
    ).toBe(base);
    expect(on('postgres')(contracted({ type: 'unique', columns: ['id'] }))).not.toBe(base);
  });
});

describe('fingerprintProject', () => {
  const pairs: [string, string][] = [
    ['model.p.a', 'f1'],
    ['model.p.b', 'f2'],
    ['seed.p.c', 'f3'],
  ];

  it('does not depend on order', () => {
    expect(fingerprintProject([...pairs].reverse())).toBe(fingerprintProject(pairs));
    // Ids and fingerprints sorting in opposite orders: the order is by id first.
    const crossed: [string, string][] = [
      ['model.p.a', 'f9'],
      ['model.p.b', 'f1'],
    ];
    expect(fingerprintProject([...crossed].reverse())).toBe(fingerprintProject(crossed));
    expect(fingerprintProject(crossed)).toBe(sha(JSON.stringify(crossed)));
    expect(fingerprintProject(new Map(pairs))).toBe(fingerprintProject(pairs));
  });

  it('changes with any fingerprint or id', () => {
    const base = fingerprintProject(pairs);
    expect(fingerprintProject([...pairs.slice(0, 2), ['seed.p.c', 'f4']])).not.toBe(base);
    expect(fingerprintProject([...pairs.slice(0, 2), ['seed.p.d', 'f3']])).not.toBe(base);
    expect(fingerprintProject(pairs.slice(0, 2))).not.toBe(base);
  });
});

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

/** What goes into the hash, part by part, for nodes of each kind: the recipe README describes. */
describe('describeFingerprint', () => {
  const context = createFingerprintContext({ metadata: { adapter_type: 'postgres' }, macros });

  it('hashes SQL by its normal form, python by its text, a seed by its checksum', () => {
    expect(describeFingerprint(model({ raw_code: 'SELECT  1 -- x' }), context).code).toEqual({ kind: 'sql', hash: sha('select 1') });
    expect(describeFingerprint({ raw_code: null, raw_sql: null }, context).code).toEqual({ kind: 'sql', hash: sha('') });
    expect(describeFingerprint(model({ language: 'python', raw_code: 'a = 1  \r\rb = 2\t\v\r\n\n' }), context).code).toEqual({
      kind: 'python',
      hash: sha('a = 1\n\nb = 2'),
    });
    expect(describeFingerprint({ resource_type: 'seed', checksum: { name: 'SHA256', checksum: 'abc' } }, context).code).toEqual({ kind: 'seed', hash: 'abc' });
    expect(describeFingerprint({ resource_type: 'seed', checksum: { name: 'PATH', checksum: 'seeds/big.csv' } }, context).code).toEqual({
      kind: 'seed',
      hash: 'seeds/big.csv',
      note: 'file over 1 MiB: dbt stored its path, not its hash',
    });
    expect(describeFingerprint({ resource_type: 'seed', checksum: null }, context).code).toEqual({ kind: 'seed', hash: null });
    expect(describeFingerprint({ resource_type: 'seed', checksum: { name: null, checksum: null } }, context).code).toEqual({ kind: 'seed', hash: null });
  });

  it('lists an enforced contract, from the node or its config, with columns sorted by name', () => {
    const columns = {
      b: { name: 'b', data_type: 'int', constraints: [{ type: 'not_null' }] },
      a: { data_type: 'text' },
      junk: 5,
    } as unknown as FingerprintInput['columns'];
    const expected = {
      alias_types: true,
      columns: [
        ['b', 'int', [{ type: 'not_null' }]],
        [null, 'text', []],
      ],
      constraints: [],
    };
    expect(describeFingerprint(model({ contract: { enforced: true }, columns }), context).contract).toEqual(expected);
    const viaConfig = model({ columns, config: { ...model().config, contract: { enforced: true } } });
    expect(describeFingerprint(viaConfig, context).contract).toEqual(expected);
    expect(describeFingerprint(model({ columns, config: { ...model().config, contract: { enforced: false } } }), context).contract).toBeNull();
    expect(describeFingerprint(model({ columns, config: { ...model().config, contract: 'yes' } }), context).contract).toBeNull();
    const aliasOff = describeFingerprint(
      model({ contract: { enforced: true, alias_types: false }, columns: {}, constraints: [{ type: 'primary_key', columns: ['b'] }] }),
      context,
    );
    expect(aliasOff.contract).toEqual({ alias_types: false, columns: [], constraints: [{ type: 'primary_key', columns: ['b'] }] });
  });

  it("counts a generic test's own macro even where its code does not name it, and what the test checks", () => {
    const test: FingerprintInput = {
      resource_type: 'test',
      raw_code: '',
      depends_on: { macros: ['macro.dbt.test_unique', 7, 'macro.dbt.get_where_subquery'] as unknown as string[] },
      test_metadata: { name: 'unique', namespace: 'dbt', kwargs: { column_name: 'id' } },
    };
    const parts = describeFingerprint(test, context);
    expect(parts.macros).toEqual([['macro.dbt.test_unique', null]]);
    expect(parts.test).toEqual({ name: 'unique', namespace: 'dbt', kwargs: { column_name: 'id' } });
    expect(describeFingerprint({ ...test, test_metadata: {} }, context).test).toEqual({ name: null, namespace: null, kwargs: null });
    expect(describeFingerprint({ ...test, test_metadata: null }, context).macros).toEqual([]);
    expect(describeFingerprint(model(), context).test).toBeNull();
  });

  it('finds a call to a macro whose name holds a character regular expressions treat specially', () => {
    const node = model({ raw_code: 'select {{ cost$usd() }}', depends_on: { macros: ['macro.p.cost$usd', 'macro.p.costXusd'] } });
    expect(describeFingerprint(node, context).macros.map(([id]) => id)).toEqual(['macro.p.cost$usd']);
  });

  it('lists the macro closure sorted, whatever order it was reached in, and macros without depends_on', () => {
    const manifest = {
      macros: {
        'macro.p.z': { macro_sql: 'z', depends_on: { macros: ['macro.p.b', 9] as unknown as string[] } },
        'macro.p.b': { macro_sql: 'b', depends_on: { macros: ['macro.p.a'] } },
        'macro.p.a': { macro_sql: 'a', depends_on: null },
      },
    };
    const parts = describeFingerprint(model({ raw_code: 'select {{ z() }}', depends_on: { macros: ['macro.p.z'] } }), createFingerprintContext(manifest));
    expect(parts.macros).toEqual([
      ['macro.p.a', sha('a')],
      ['macro.p.b', sha('b')],
      ['macro.p.z', sha('z')],
    ]);
  });
});
