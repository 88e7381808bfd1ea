import { describe, expect, it } from 'vitest';
import { alignedTable, formatSeconds, formatTrend, formatWhen } from '../../src/format.js';
import { lensTitle, refTarget, statsOf } from '../../src/model-text.js';

describe('what the CodeLens and hover say', () => {
  it('runtimes: two decimals under a minute, minutes and seconds above', () => {
    expect([0.265991, 12.5, 185.4, null].map(formatSeconds)).toEqual(['0.27s', '12.50s', '3m 05s', '-']);
  });

  it('trend: slower, faster, steady, or none yet', () => {
    expect([2.1, 0.5, 1.05, null].map(formatTrend)).toEqual(['trend ↑2.10×', 'trend ↓0.50×', 'trend →1.05×', 'no trend yet']);
  });

  it('the lens line, from a row of the store', () => {
    const stats = statsOf({
      unique_id: 'model.p.orders',
      name: 'orders',
      resource_type: 'model',
      path: 'models/orders.sql',
      last_status: 'success',
      last_s: 0.2823,
      median_s: 0.265991,
      trend_ratio: 1.13,
      runs: 6,
      runs_since_change: 1,
    });
    expect(lensTitle(stats)).toBe('dbtattic: last success in 0.28s · median 0.27s · trend ↑1.13× · 1 build since semantic change');
    expect(lensTitle({ ...stats, lastStatus: null })).toBe('dbtattic: orders not built yet');
  });

  it('ref() names its model last: one argument, a package first, a version after', () => {
    expect(["ref('orders')", 'ref("shop", "orders")', "ref('orders', v=2)", "ref('shop', 'orders', version=2)"].map(refTarget)).toEqual([
      'orders',
      'orders',
      'orders',
      'orders',
    ]);
  });

  it('times as the CLI prints them: UTC to the minute, with its Z', () => {
    expect(['2026-01-31T12:00:59.9Z', '2026-01-31T14:00:00+02:00', null, 'not a time'].map(formatWhen)).toEqual([
      '2026-01-31 12:00Z',
      '2026-01-31 12:00Z',
      '-',
      'not a time',
    ]);
  });

  it('documents align their columns', () => {
    expect(alignedTable(['a', 'bb'], [['xxx', 'y']])).toBe('a    bb\n---  --\nxxx  y\n');
  });
});
