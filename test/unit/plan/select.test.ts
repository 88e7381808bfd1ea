import { describe, expect, it } from 'vitest';
import { lineageOf } from '../../../src/plan/graph.js';
import { applySelection, parseSelectors } from '../../../src/plan/select.js';
import type { CurrentNode } from '../../../src/store/index.js';

const node = (id: string, parents: string[] = [], extra: Partial<CurrentNode> = {}): CurrentNode => ({
  uniqueId: id,
  resourceType: id.split('.')[0]!,
  name: id.split('.').at(-1)!,
  packageName: 'p',
  path: `models/${id.split('.').at(-1)}.sql`,
  tags: [],
  fqn: ['p', id.split('.').at(-1)!],
  materialization: 'table',
  fingerprint: null,
  checksum: null,
  configKey: null,
  buildAfter: null,
  parents,
  tableKey: null,
  ...extra,
});
// a → b → c → d, and a test on b; a source named like a model.
const lineage = lineageOf([
  node('source.p.raw.b'),
  node('model.p.a'),
  node('model.p.b', ['model.p.a', 'source.p.raw.b'], { tags: ['core'] }),
  node('model.p.c', ['model.p.b'], { path: 'models/marts/c.sql' }),
  node('model.p.d', ['model.p.c']),
  node('test.p.not_null_b', ['model.p.b']),
]);
const pick = (select: string[], exclude: string[] = []): string[] => [...lineage.byId.keys()].filter(applySelection(lineage, select, exclude)).sort();

describe('plan selection', () => {
  it("takes dbt's simple forms", () => {
    expect(pick(['b'])).toEqual(['model.p.b', 'test.p.not_null_b']);
    expect(pick(['b+1'])).toEqual(['model.p.b', 'model.p.c', 'test.p.not_null_b']);
    expect(pick(['+c'])).toEqual(['model.p.a', 'model.p.b', 'model.p.c', 'source.p.raw.b', 'test.p.not_null_b']);
    expect(pick(['2+d'])).toEqual(['model.p.b', 'model.p.c', 'model.p.d', 'test.p.not_null_b']);
    expect(pick(['tag:core', 'path:models/marts'])).toEqual(['model.p.b', 'model.p.c', 'test.p.not_null_b']);
    expect(pick(['resource_type:test'])).toEqual(['test.p.not_null_b']);
    expect(pick(['a b+'], ['c'])).toEqual(['model.p.a', 'model.p.b', 'model.p.d', 'test.p.not_null_b']);
    expect(pick(['p.d'])).toEqual(['model.p.d']);
  });

  it('excluding a node takes its tests out too', () => {
    expect(pick([], ['b'])).not.toContain('test.p.not_null_b');
  });

  it.each(['state:modified', 'source:raw.b', '@b', 'a,b', 'stg_*', 'config.materialized:table', '+'])('refuses %s, naming what it supports', (spec) => {
    expect(() => parseSelectors([spec])).toThrow(/Unsupported selector .*names .*tag:NAME, path:DIR, resource_type:TYPE/);
  });
});
