import { describe, expect, it } from 'vitest';
import { resolvePolicy, resolvePruneGrace, EMPTY_POLICY } from '../../../src/retention/index.js';

describe('where a keep policy comes from', () => {
  it('takes retention: from dbtattic.yml', () => {
    expect(resolvePolicy({}, { keep_last: 10, keep_daily: '7', keep_within: '2w' })).toEqual({
      policy: { ...EMPTY_POLICY, last: 10, daily: 7, withinMs: 14 * 86_400_000 },
      source: 'dbtattic.yml',
    });
  });

  it('flags replace the whole file policy, not just the rules they name', () => {
    expect(resolvePolicy({ keepMonthly: '3' }, { keep_last: 10 })).toEqual({ policy: { ...EMPTY_POLICY, monthly: 3 }, source: 'flags' });
  });

  it('refuses to run with no policy, or one that keeps nothing', () => {
    expect(() => resolvePolicy({}, undefined)).toThrow(/No retention policy/);
    expect(() => resolvePolicy({ keepLast: '0' }, undefined)).toThrow(/No retention policy/);
  });

  it('refuses counts and durations it cannot read, naming the setting', () => {
    expect(() => resolvePolicy({ keepDaily: 'seven' }, undefined)).toThrow(/--keep-daily takes a whole number/);
    expect(() => resolvePolicy({}, { keep_last: -1 })).toThrow(/retention.keep_last takes a whole number/);
    expect(() => resolvePolicy({ keepWithin: '30 days' }, undefined)).toThrow(/duration such as 90s, 12h/);
    expect(() => resolvePolicy({}, 'keep everything')).toThrow(/must be a mapping/);
  });

  it('prune grace: the flag, else prune_grace, else an hour; 0 turns it off', () => {
    expect(resolvePruneGrace('0', { prune_grace: '2h' })).toBe(0);
    expect(resolvePruneGrace(undefined, { prune_grace: '2h' })).toBe(7_200_000);
    expect(resolvePruneGrace(undefined, undefined)).toBe(3_600_000);
  });
});
