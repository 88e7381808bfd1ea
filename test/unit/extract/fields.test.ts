import { describe, expect, it } from 'vitest';
import { int, json, pick, text, timestamp } from '../../../src/extract/fields.js';

describe('timestamp', () => {
  it('keeps the times dbt and Fusion write', () => {
    expect(timestamp('2021-03-30T17:24:30.883690Z')).toBe('2021-03-30T17:24:30.883690Z');
    expect(timestamp('2026-08-07T09:08:02.671053146Z')).toBe('2026-08-07T09:08:02.671053146Z');
    expect(timestamp('2022-01-01T10:00:00+02:00')).toBe('2022-01-01T10:00:00+02:00');
  });

  it('reads a time without a zone as UTC, as dbt writes UTC', () => {
    expect(timestamp('2022-01-01T10:00:00.123')).toBe('2022-01-01T10:00:00.123Z');
  });

  it('gives null for what is not a time', () => {
    expect(timestamp('yesterday')).toBeNull();
    expect(timestamp(1_700_000_000)).toBeNull();
    expect(timestamp(null)).toBeNull();
  });
});

describe('field readers', () => {
  it('int takes integers and integer strings only', () => {
    expect(int(5)).toBe(5);
    expect(int('42')).toBe(42);
    expect(int(1.5)).toBeNull();
    expect(int('1,000')).toBeNull();
  });

  it('text writes numbers as strings (a model version is either)', () => {
    expect(text(2)).toBe('2');
    expect(text('v2')).toBe('v2');
    expect(text({})).toBeNull();
  });

  it('json keeps empty values and drops missing ones', () => {
    expect(json({})).toBe('{}');
    expect(json(undefined)).toBeNull();
    expect(json(null)).toBeNull();
  });

  it('pick gives the present keys or null', () => {
    expect(pick({ a: 1, b: undefined, c: null }, ['a', 'b', 'c'])).toEqual({ a: 1, c: null });
    expect(pick({ a: 1 }, ['z'])).toBeNull();
  });
});
