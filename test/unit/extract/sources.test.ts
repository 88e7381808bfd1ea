import { describe, expect, it } from 'vitest';
import { extractSources } from '../../../src/extract/index.js';
import { bytes, syntheticMetadata } from './synthetic.js';

describe('extractSources (synthetic)', () => {
  it('gives a row per source with age and thresholds', () => {
    const extract = extractSources(
      bytes({
        metadata: syntheticMetadata('sources', 3),
        results: [
          {
            unique_id: 'source.p.raw.orders',
            status: 'Warn',
            max_loaded_at: '2030-01-01T00:00:00+00:00',
            snapshotted_at: '2030-01-02T00:00:00+00:00',
            max_loaded_at_time_ago_in_s: 86400,
            criteria: { warn_after: { count: 12, period: 'hour' }, error_after: { count: null, period: null }, filter: null },
            adapter_response: {},
            timing: [],
            thread_id: 'Thread-1',
            execution_time: 0.5,
          },
          { unique_id: 'source.p.raw.users', status: 'runtime error', error: 'Database Error: no column _loaded_at' },
        ],
        elapsed_time: 2,
      }),
    );
    expect(extract.freshness[0]).toEqual({
      invocation_id: 'synthetic-invocation',
      unique_id: 'source.p.raw.orders',
      status: 'warn',
      message: null,
      max_loaded_at: '2030-01-01T00:00:00+00:00',
      snapshotted_at: '2030-01-02T00:00:00+00:00',
      age_s: 86400,
      warn_after_count: 12,
      warn_after_period: 'hour',
      error_after_count: null,
      error_after_period: null,
      criteria: '{"warn_after":{"count":12,"period":"hour"},"error_after":{"count":null,"period":null},"filter":null}',
      execution_time: 0.5,
      thread_id: 'Thread-1',
      adapter_response: '{}',
    });
    expect(extract.freshness[1]).toMatchObject({ status: 'runtime error', message: 'Database Error: no column _loaded_at', criteria: null });
    expect(extract.invocation).toMatchObject({ result_count: 2, status_counts: '{"runtime error":1,"warn":1}', elapsed_s: 2 });
  });

  it('reads a pre-0.19 result: nested node, `age`, and a query error as runtime error', () => {
    const extract = extractSources(
      bytes({
        results: [
          {
            node: { unique_id: 'source.p.raw.a', resource_type: 'source', freshness: { error_after: { count: 1, period: 'day' } } },
            status: 'error',
            error: 'Database Error',
            timing: [],
          },
          {
            node: { unique_id: 'source.p.raw.b', resource_type: 'source' },
            status: 'pass',
            error: null,
            age: 60,
            max_loaded_at: '2020-01-01T00:00:00',
            timing: [],
          },
        ],
        generated_at: '2020-01-01T00:01:00Z',
      }),
      { invocationId: 'content-1' },
    );
    expect(extract.freshness.map((f) => [f.unique_id, f.status, f.age_s, f.error_after_count, f.max_loaded_at])).toEqual([
      ['source.p.raw.a', 'runtime error', null, 1, null],
      ['source.p.raw.b', 'pass', 60, null, '2020-01-01T00:00:00Z'],
    ]);
  });
});
