import { describe, expect, it } from 'vitest';
import { countStatuses, normaliseLegacyResult, normaliseStatus } from '../../../src/extract/status.js';

describe('normaliseStatus', () => {
  it.each([
    ['success', 'success'],
    ['Pass', 'pass'],
    ['Warn', 'warn'],
    ['Error', 'error'],
    ['runtime error', 'runtime error'],
    ['Runtime Error', 'runtime error'],
    ['no-op', 'no-op'],
    ['noop', 'no-op'],
    ['partial success', 'partial success'],
    ['partial_success', 'partial success'],
    ['reused', 'reused'],
    ['RuntimeError', 'runtime error'],
    ['Runtime-Error', 'runtime error'],
    ['runtime  error', 'runtime error'],
    ['PartialSuccess', 'partial success'],
    ['Partial - Success', 'partial success'],
    ['No Op', 'no-op'],
  ])('%s → %s', (raw, expected) => {
    expect(normaliseStatus(raw)).toBe(expected);
  });

  it('keeps a status it does not know, lower-cased, rather than guessing', () => {
    expect(normaliseStatus('Deferred')).toBe('deferred');
  });

  it('gives null for no status', () => {
    expect(normaliseStatus(null)).toBeNull();
    expect(normaliseStatus(undefined)).toBeNull();
    expect(normaliseStatus('  ')).toBeNull();
    expect(normaliseStatus(0)).toBeNull();
  });
});

describe('normaliseLegacyResult (dbt before 0.19)', () => {
  const base = { status: null, error: null, fail: null, warn: null, skip: false, isTest: false };

  it('turns an adapter message into success and keeps it as the message', () => {
    expect(normaliseLegacyResult({ ...base, status: 'CREATE VIEW' })).toEqual({ status: 'success', message: 'CREATE VIEW', failures: null });
    expect(normaliseLegacyResult({ ...base, status: 'SUCCESS 1' })).toEqual({ status: 'success', message: 'SUCCESS 1', failures: null });
  });

  it('is an error when `error` is set, with the error as message', () => {
    expect(normaliseLegacyResult({ ...base, error: 'Database Error: boom' })).toEqual({ status: 'error', message: 'Database Error: boom', failures: null });
  });

  it('is skipped when skip is true', () => {
    expect(normaliseLegacyResult({ ...base, skip: true }).status).toBe('skipped');
  });

  it('reads a test failure count from status', () => {
    expect(normaliseLegacyResult({ ...base, isTest: true, status: 0.0 })).toEqual({ status: 'pass', message: null, failures: 0 });
    expect(normaliseLegacyResult({ ...base, isTest: true, status: 3, fail: true })).toEqual({ status: 'fail', message: null, failures: 3 });
    expect(normaliseLegacyResult({ ...base, isTest: true, status: 2, warn: true }).status).toBe('warn');
    expect(normaliseLegacyResult({ ...base, isTest: true, status: 2 }).status).toBe('fail');
    // `fail` alone decides, whatever the count says; a false flag decides nothing.
    expect(normaliseLegacyResult({ ...base, isTest: true, status: 0, fail: true }).status).toBe('fail');
    expect(normaliseLegacyResult({ ...base, isTest: true, status: 0, fail: false, warn: false }).status).toBe('pass');
  });

  it('is success for a model with a null status and no error', () => {
    expect(normaliseLegacyResult(base).status).toBe('success');
  });
});

describe('countStatuses', () => {
  it('counts by status with sorted keys, null as unknown', () => {
    expect(countStatuses([{ status: 'success' }, { status: 'error' }, { status: 'success' }, { status: null }])).toBe('{"error":1,"success":2,"unknown":1}');
  });
});
