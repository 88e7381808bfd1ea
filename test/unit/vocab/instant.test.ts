import { describe, expect, it } from 'vitest';
import { compareInstants, normaliseInstant, parseInstant } from '../../../src/vocab/index.js';

describe('instants as dbt writes them', () => {
  it('reads one instant the same in every spelling dbt uses', () => {
    const spellings = [
      '2024-05-01T10:00:25.044509Z',
      '2024-05-01T10:00:25.044509+00:00',
      '2024-05-01T10:00:25.044509',
      '2024-05-01T12:00:25.044509+02:00',
      '2024-05-01T10:00:25.044509000Z',
      '2024-05-01 10:00:25.044509+0000',
    ];
    const parsed = spellings.map(parseInstant);
    expect(new Set(parsed).size).toBe(1);
    expect(parsed[0]).toBe(BigInt(Date.parse('2024-05-01T10:00:25.044Z')) * 1_000_000n + 509_000n);
  });

  it('orders by instant where text order is wrong', () => {
    // As text, 'Z' (0x5A) sorts after '.', '+' and digits: each pair below is upside down.
    expect(compareInstants('2024-05-01T10:00:25Z', '2024-05-01T10:00:25.5Z')).toBeLessThan(0);
    expect(compareInstants('2024-05-01T10:00:25.0445Z', '2024-05-01T10:00:25.044509+00:00')).toBeLessThan(0);
    expect(compareInstants('2024-05-01T10:00:25.044509Z', '2024-05-01T10:00:25.044509001Z')).toBeLessThan(0);
    expect(compareInstants('2024-05-01T11:00:00+02:00', '2024-05-01T10:00:00Z')).toBeLessThan(0);
  });

  it('is total: no time sorts before any time, and ties with no time', () => {
    expect(compareInstants(null, '1970-01-01T00:00:00Z')).toBeLessThan(0);
    expect(compareInstants('not a time', '1970-01-01T00:00:00Z')).toBeLessThan(0);
    expect(compareInstants('2024-05-01T10:00:00Z', undefined)).toBeGreaterThan(0);
    expect(compareInstants(null, 'garbage')).toBe(0);
  });

  it('normalises to one UTC form, keeping nanoseconds', () => {
    expect(normaliseInstant('2024-05-01T12:00:25.044509+02:00')).toBe('2024-05-01T10:00:25.044509Z');
    expect(normaliseInstant('2024-05-01T10:00:25')).toBe('2024-05-01T10:00:25Z');
    expect(normaliseInstant('2024-05-01T10:00:25.123456789Z')).toBe('2024-05-01T10:00:25.123456789Z');
    expect(normaliseInstant('1969-12-31T23:59:59.5Z')).toBe('1969-12-31T23:59:59.5Z');
    expect(normaliseInstant('yesterday')).toBeNull();
  });
});
