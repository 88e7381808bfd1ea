import { describe, expect, it } from 'vitest';
import { mergeInvocationFacts } from '../../../src/extract/index.js';
import { emptyFacts } from '../../../src/extract/invocation.js';

describe('mergeInvocationFacts', () => {
  it('takes each column from the first artifact that has it, run_results first', () => {
    const manifest = { ...emptyFacts('i'), project_name: 'p', adapter_type: 'duckdb', dbt_version: '1.9.0', generated_at: '2030-01-01T00:00:00Z' };
    const runResults = { ...emptyFacts('i'), command: 'run', dbt_version: '1.9.0', generated_at: '2030-01-01T00:05:00Z', result_count: 3 };
    const merged = mergeInvocationFacts([
      { from: 'manifest', facts: manifest },
      { from: 'run_results', facts: runResults },
    ]);
    expect(merged).toMatchObject({ project_name: 'p', adapter_type: 'duckdb', command: 'run', generated_at: '2030-01-01T00:05:00Z', result_count: 3 });
  });

  it('refuses facts of different invocations', () => {
    expect(() =>
      mergeInvocationFacts([
        { from: 'manifest', facts: emptyFacts('a') },
        { from: 'catalog', facts: emptyFacts('b') },
      ]),
    ).toThrow(/cannot merge/);
  });
});
