import { describe, expect, it } from 'vitest';
import { parseTimeArgument, spanLastIso, spanStartIso } from '../../../src/vocab/index.js';

/** Expected instants are written out by hand in UTC, not computed by the code under test. */
describe('parseTimeArgument', () => {
  it.each([
    ['2026-01-31T12:00Z', '2026-01-31T12:00:00.000Z'],
    ['2026-01-31T12:00:00Z', '2026-01-31T12:00:00.000Z'],
    ['2026-01-31T12:00:00.25Z', '2026-01-31T12:00:00.250Z'],
    ['2026-01-31T12:00:00,25Z', '2026-01-31T12:00:00.250Z'],
    ['2026-01-31T14:00+02:00', '2026-01-31T12:00:00.000Z'],
    ['2026-01-31T14:00+0200', '2026-01-31T12:00:00.000Z'],
    ['2026-01-31T14+02', '2026-01-31T12:00:00.000Z'],
    ['2026-01-31T07:30-04:30', '2026-01-31T12:00:00.000Z'],
    ['2026-01-31 12:00:00+00:00', '2026-01-31T12:00:00.000Z'],
    ['2026-01-31T12:00', '2026-01-31T12:00:00.000Z'],
    ['20260131T120000Z', '2026-01-31T12:00:00.000Z'],
    ['20260131T1400+0200', '2026-01-31T12:00:00.000Z'],
    ['2026-01-31T12.5Z', '2026-01-31T12:30:00.000Z'],
    ['2026-01-30T24:00Z', '2026-01-31T00:00:00.000Z'],
    ['2026-W05-6T12:00Z', '2026-01-31T12:00:00.000Z'],
    ['2026-031T12:00Z', '2026-01-31T12:00:00.000Z'],
  ])('%s is the instant %s', (text, iso) => {
    const span = parseTimeArgument(text);
    expect(spanStartIso(span)).toBe(iso);
    expect(spanLastIso(span)).toBe(iso);
  });

  it.each([
    ['2026-01-31', '2026-01-31T00:00:00.000Z', '2026-01-31T23:59:59.999999Z'],
    ['20260131', '2026-01-31T00:00:00.000Z', '2026-01-31T23:59:59.999999Z'],
    ['2026-031', '2026-01-31T00:00:00.000Z', '2026-01-31T23:59:59.999999Z'],
    ['2026031', '2026-01-31T00:00:00.000Z', '2026-01-31T23:59:59.999999Z'],
    ['2026-W05-6', '2026-01-31T00:00:00.000Z', '2026-01-31T23:59:59.999999Z'],
    ['2026W056', '2026-01-31T00:00:00.000Z', '2026-01-31T23:59:59.999999Z'],
    ['2026-W05', '2026-01-26T00:00:00.000Z', '2026-02-01T23:59:59.999999Z'],
    ['2020-W53-5', '2021-01-01T00:00:00.000Z', '2021-01-01T23:59:59.999999Z'],
    ['2026-02', '2026-02-01T00:00:00.000Z', '2026-02-28T23:59:59.999999Z'],
    ['2024-366', '2024-12-31T00:00:00.000Z', '2024-12-31T23:59:59.999999Z'],
  ])('a date alone, %s, is the span %s … %s', (text, first, last) => {
    const span = parseTimeArgument(text);
    expect(spanStartIso(span)).toBe(first);
    expect(spanLastIso(span)).toBe(last);
  });

  it.each(['2026-02-30', '2026-13-01', '2025-366', '2025-W53-1', '2026-01-31T25:00Z', '2026-01-31T12:60Z', '31/01/2026', ''])(
    '%s is refused as a usage error naming the forms',
    (text) => {
      expect(() => parseTimeArgument(text)).toThrow(expect.objectContaining({ code: 'usage', message: expect.stringContaining('ISO 8601') }));
    },
  );
});

/** Issue 44 item 12: `--since 7d`, `--since yesterday` were refused. "Now" is fixed here by hand. */
describe('parseTimeArgument, relative to now', () => {
  const now = Date.parse('2026-12-07T08:30:00.000Z');
  it.each([
    ['7d', '2026-11-30T08:30:00.000Z', '2026-11-30T08:30:00.000Z'],
    ['7d ago', '2026-11-30T08:30:00.000Z', '2026-11-30T08:30:00.000Z'],
    ['12h', '2026-12-06T20:30:00.000Z', '2026-12-06T20:30:00.000Z'],
    ['2w', '2026-11-23T08:30:00.000Z', '2026-11-23T08:30:00.000Z'],
    ['90s', '2026-12-07T08:28:30.000Z', '2026-12-07T08:28:30.000Z'],
    ['today', '2026-12-07T00:00:00.000Z', '2026-12-07T23:59:59.999999Z'],
    ['Yesterday', '2026-12-06T00:00:00.000Z', '2026-12-06T23:59:59.999999Z'],
  ])('%s spans %s to %s', (text, first, last) => {
    const span = parseTimeArgument(text, now);
    expect(spanStartIso(span)).toBe(first);
    expect(spanLastIso(span)).toBe(last);
  });

  it('refuses what is neither, naming both forms', () => {
    expect(() => parseTimeArgument('7 days', now)).toThrow(/ISO 8601.*7d, 2w, today, yesterday/);
    expect(() => parseTimeArgument('7x', now)).toThrow(/is not a time/);
  });
});
