import { describe, expect, it } from 'vitest';
import { extractCatalog } from '../../../src/extract/index.js';
import { bytes, syntheticMetadata } from './synthetic.js';

describe('extractCatalog (synthetic)', () => {
  const extract = extractCatalog(
    bytes({
      metadata: syntheticMetadata('catalog', 1),
      nodes: {
        'model.p.orders': {
          unique_id: 'model.p.orders',
          metadata: { type: 'BASE TABLE', schema: 'analytics', name: 'orders', database: 'db', comment: null, owner: 'loader' },
          columns: {
            ID: { type: 'NUMBER', index: 1, name: 'ID', comment: null },
            AMOUNT: { type: 'NUMBER(38,2)', index: 2, name: 'AMOUNT', comment: 'in cents' },
          },
          stats: { row_count: { id: 'row_count', value: 1200, include: true }, bytes: { id: 'bytes', value: 40960.0, include: true } },
        },
      },
      sources: {
        'source.p.raw.orders': { unique_id: 'source.p.raw.orders', metadata: { type: 'view', schema: 'raw', name: 'orders' }, columns: {}, stats: {} },
      },
      errors: null,
    }),
  );
  const entries = [...extract.entries()];

  it('gives a table row per node and source, with size from stats', () => {
    expect(entries.map((e) => e.table.unique_id)).toEqual(['model.p.orders', 'source.p.raw.orders']);
    expect(entries[0]!.table).toMatchObject({ table_type: 'BASE TABLE', owner: 'loader', row_count: 1200, byte_count: 40960, database_name: 'db' });
    expect(entries[1]!.table).toMatchObject({ row_count: null, byte_count: null, stats: '{}' });
  });

  it('gives a row per column', () => {
    expect(entries[0]!.columns.map((c) => [c.column_name, c.column_type, c.column_index, c.comment])).toEqual([
      ['ID', 'NUMBER', 1, null],
      ['AMOUNT', 'NUMBER(38,2)', 2, 'in cents'],
    ]);
  });

  it('gives the generate invocation its metadata facts', () => {
    expect(extract.invocation).toMatchObject({ invocation_id: 'synthetic-invocation', generated_at: '2030-01-02T03:04:05.000000Z' });
  });
});
