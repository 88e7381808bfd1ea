import { describe, expect, it } from 'vitest';
import { comparedColumns, comparedConfig } from '../../../src/extract/compared-config.js';
import { describeFingerprint } from '../../../src/extract/node-fingerprint.js';
import { createFingerprintContext } from '../../../src/extract/fingerprint-context.js';
import { extractManifest } from '../../../src/extract/index.js';
import { bytes, syntheticMetadata, syntheticModel } from './synthetic.js';

/**
 * What two dbt engines write differently for the same project (seen between dbt 1.12 and
 * dbt Fusion 2.0 on one commit of a corpus project; test/unit/store/fusion-noise.test.ts checks
 * it there): compared alike, while a real edit of the same field still differs.
 */
describe('config as compared', () => {
  it('treats True and true (False, None) in unrendered Jinja as one literal, but not inside quotes', () => {
    const core = comparedConfig({ enabled: "var('on', True)", where: "x = 'True'" }, { jinja: true });
    expect(comparedConfig({ enabled: "var('on', true)", where: "x = 'True'" }, { jinja: true })).toBe(core);
    expect(comparedConfig({ enabled: "var('on', true)", where: "x = 'true'" }, { jinja: true })).not.toBe(core);
    expect(comparedConfig({ enabled: "var('on', False)" }, { jinja: true })).not.toBe(core);
    expect(comparedConfig({ enabled: "var('on', Trueish)" }, { jinja: true })).not.toBe(comparedConfig({ enabled: "var('on', trueish)" }, { jinja: true }));
  });

  it('reads grants and unique_key as sets of their entries, and hooks as lists', () => {
    expect(comparedConfig({ grants: { select: ['a', 'a'] }, unique_key: ['id', 'd', 'id', 'd'] })).toBe(
      comparedConfig({ grants: { select: ['a'] }, unique_key: ['id', 'd'] }),
    );
    expect(comparedConfig({ unique_key: ['id', 'd'] })).not.toBe(comparedConfig({ unique_key: ['id'] }));
    expect(comparedConfig({ 'post-hook': ['x', 'x'] })).not.toBe(comparedConfig({ 'post-hook': ['x'] }));
  });
});

describe('declared columns as compared', () => {
  const column = { name: 'id', description: 'the key', data_type: 'int' };
  it('leaves out doc_blocks, the config mirror, and meta and tags copied from the node', () => {
    const core = comparedColumns(
      { id: { ...column, meta: { owner: 'a' }, tags: ['crm'], config: { meta: { owner: 'a' }, tags: ['crm'] }, doc_blocks: ['doc.p.id'] } },
      { meta: {}, tags: [] },
    );
    const fusion = comparedColumns(
      { id: { ...column, meta: { owner: 'a', team: 't' }, tags: ['crm', 'node_tag'], config: {} } },
      { meta: { team: 't' }, tags: ['node_tag'] },
    );
    expect(fusion).toBe(core);
  });

  it('still sees a column meta edit, a value different from the node, and a new column tag', () => {
    const base = comparedColumns({ id: { ...column, meta: { owner: 'a' } } }, { meta: { owner: 'a' } });
    expect(comparedColumns({ id: { ...column, meta: { owner: 'b' } } }, { meta: { owner: 'a' } })).not.toBe(base);
    expect(comparedColumns({ id: { ...column, tags: ['pii'] } }, { meta: { owner: 'a' }, tags: [] })).not.toBe(base);
    expect(comparedColumns({ id: { ...column, description: 'another' } }, { meta: { owner: 'a' } })).not.toBe(base);
  });
});

describe('a seed whose materialization one engine leaves out', () => {
  const seed = (config: Record<string, unknown>): Record<string, unknown> => ({
    resource_type: 'seed',
    unique_id: 'seed.p.s',
    name: 's',
    checksum: { name: 'sha256', checksum: 'c' },
    config,
    unrendered_config: {},
  });
  const manifest = (node: Record<string, unknown>): Buffer =>
    bytes({
      metadata: syntheticMetadata('manifest', 12),
      nodes: { 'seed.p.s': node, 'model.synthetic_project.m': syntheticModel('m') },
      sources: {},
      macros: {},
    });

  it('has the seed materialization either way, in the store and in the fingerprint', () => {
    const [written, left] = [seed({ materialized: 'seed' }), seed({})];
    const rows = (node: Record<string, unknown>) =>
      [...extractManifest(manifest(node)).entries()].flatMap((e) => (e.kind === 'node' && e.version.unique_id === 'seed.p.s' ? [e.version] : []))[0]!;
    expect(rows(left).materialization).toBe('seed');
    expect(rows(written).materialization).toBe('seed');
    const context = createFingerprintContext({ metadata: {}, macros: {} });
    expect(describeFingerprint(left, context).config).toEqual(describeFingerprint(written, context).config);
    expect(describeFingerprint(seed({ materialized: 'table' }), context).config).not.toEqual(describeFingerprint(written, context).config);
  });
});

describe('a hook (an operation) as two engines write it', () => {
  const context = createFingerprintContext({ metadata: {}, macros: {} });
  const hook = (extra: Record<string, unknown>): Record<string, unknown> => ({
    resource_type: 'operation',
    unique_id: 'operation.p.p-on-run-start-0',
    raw_code: 'create table if not exists audit (x int)',
    ...extra,
  });

  it('has one fingerprint whatever config and schema the manifest gives it, and another for other SQL', () => {
    const core = describeFingerprint(hook({ config: { materialized: 'view' }, unrendered_config: {}, schema: 'main' }), context);
    expect(describeFingerprint(hook({ config: null, schema: 'public' }), context)).toEqual(core);
    expect(describeFingerprint(hook({ raw_code: 'create table if not exists audit (x bigint)', config: { materialized: 'view' } }), context)).not.toEqual(core);
  });
});
