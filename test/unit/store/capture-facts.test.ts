import { describe, expect, it } from 'vitest';
import { dbtCommandOf } from '../../../src/store/ingest/capture-facts.js';

describe('dbtCommandOf', () => {
  it.each([
    [['dbt', 'build', '-s', 'x'], 'build'],
    [['dbt', '--log-format', 'json', 'parse'], 'parse'],
    [['/usr/local/bin/dbt', 'source', 'freshness'], 'source freshness'],
    [['uv', 'run', 'dbt', 'docs', 'generate'], 'docs generate'],
    [['make', 'build'], null],
    [['dbt', '--version'], null],
  ])('%j → %s', (argv, expected) => {
    expect(dbtCommandOf(argv)).toBe(expected);
  });
});
