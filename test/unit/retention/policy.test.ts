import { describe, expect, it } from 'vitest';
import { applyPolicy, EMPTY_POLICY, periodOf, type Dated } from '../../../src/retention/index.js';
import { parseDuration } from '../../../src/vocab/index.js';
import { calendarHours, HOUR, HOURS, YEAR_START } from '../../helpers/year-history.js';

/** A run at half past every hour of 2025, UTC. */
function hourlyYear(prefix: string): Dated[] {
  return Array.from({ length: HOURS }, (_, hour) => ({ id: `${prefix}-${hour}`, ranAtMs: YEAR_START + hour * HOUR }));
}

describe('keep policy (restic meanings)', () => {
  it('a year of hourly runs, --keep-last 10 --keep-daily 7 --keep-monthly 12: exactly the calendar set', () => {
    const kept = applyPolicy(hourlyYear('main'), { ...EMPTY_POLICY, last: 10, daily: 7, monthly: 12 });
    const expected = new Set([...calendarHours()].map((hour) => `main-${hour}`));
    expect(new Set(kept.keys())).toEqual(expected);
    // 10 + 7 + 12 with overlaps: 31 Dec 23:30 is last, daily and monthly
    expect(expected.size).toBe(10 + 6 + 11);
    expect(kept.get('main-8759')).toEqual(['last', 'daily', 'monthly']);
  });

  it('periods without a run do not count: daily 3 over runs days apart reaches back as far as it must', () => {
    const day = 24 * HOUR;
    const runs = [0, 1, 5, 9].map((d) => ({ id: `d${d}`, ranAtMs: Date.UTC(2025, 5, 1) + d * day }));
    expect([...applyPolicy(runs, { ...EMPTY_POLICY, daily: 3 }).keys()].sort()).toEqual(['d1', 'd5', 'd9']);
  });

  it('keep-within counts back from the newest run, not from now', () => {
    const runs = [0, 10, 20, 30].map((h) => ({ id: `h${h}`, ranAtMs: Date.UTC(2020, 0, 1) + h * HOUR }));
    expect([...applyPolicy(runs, { ...EMPTY_POLICY, withinMs: parseDuration('12h', 'x') }).keys()].sort()).toEqual(['h20', 'h30']);
  });

  it('weeks are ISO weeks: 29 December 2025 belongs to week 1 of 2026', () => {
    expect(periodOf('weekly', Date.UTC(2025, 11, 29, 12))).toBe('2026-W01');
    expect(periodOf('weekly', Date.UTC(2025, 11, 28, 12))).toBe('2025-W52');
    expect(periodOf('weekly', Date.UTC(2021, 0, 3, 12))).toBe('2020-W53');
  });

  it('within one period the newest run is the one kept, whatever order the runs come in', () => {
    const runs = [
      { id: 'late', ranAtMs: Date.UTC(2025, 0, 1, 22) },
      { id: 'early', ranAtMs: Date.UTC(2025, 0, 1, 1) },
    ];
    expect([...applyPolicy(runs, { ...EMPTY_POLICY, daily: 1 }).keys()]).toEqual(['late']);
  });
});

describe('parseDuration', () => {
  // Issue 44 item 12: `prune --grace 0s` was refused for want of a seconds unit.
  it('takes seconds, and months as m', () => {
    expect(parseDuration('0s', '--grace')).toBe(0);
    expect(parseDuration('90s', '--grace')).toBe(90_000);
    expect(parseDuration('6m', 'keep-within')).toBe(180 * 86_400_000);
    expect(() => parseDuration('5min', '--grace')).toThrow(/90s, 12h, 30d, 2w, 6m \(months\) or 1y/);
  });
});
