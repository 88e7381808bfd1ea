import { describe, expect, it } from 'vitest';
import { extractRunResults } from '../../../src/extract/index.js';
import { bytes, syntheticMetadata } from './synthetic.js';

const timing = [
  { name: 'compile', started_at: '2030-01-02T03:00:00.000001Z', completed_at: '2030-01-02T03:00:01Z' },
  { name: 'execute', started_at: '2030-01-02T03:00:01Z', completed_at: '2030-01-02T03:00:04.5Z' },
];

describe('extractRunResults (v6, synthetic)', () => {
  const extract = extractRunResults(
    bytes({
      metadata: syntheticMetadata('run-results', 6),
      results: [
        {
          unique_id: 'model.p.a',
          status: 'success',
          timing,
          thread_id: 'Thread-1',
          execution_time: 4.5,
          message: 'SELECT 3',
          failures: null,
          adapter_response: { _message: 'SELECT 3', rows_affected: 3 },
          compiled_code: 'select …',
        },
        { unique_id: 'test.p.t', status: 'fail', timing: [], execution_time: 0.1, message: 'Got 2 results', failures: 2, adapter_response: {} },
        { unique_id: 'model.p.b', status: 'partial success', timing: [], batch_results: { successful: [['2030-01-01', '2030-01-02']], failed: [] } },
        { unique_id: 'model.p.c', status: 'no-op', timing: [] },
      ],
      elapsed_time: 10,
      args: {
        which: 'build',
        select: ['tag:nightly'],
        exclude: [],
        selector: null,
        full_refresh: true,
        target: 'prod',
        vars: {},
        invocation_command: 'dbt build -s tag:nightly --full-refresh',
      },
    }),
  );

  it('gives a row per result with timing and adapter facts', () => {
    expect(extract.results[0]).toEqual({
      invocation_id: 'synthetic-invocation',
      unique_id: 'model.p.a',
      status: 'success',
      message: 'SELECT 3',
      failures: null,
      execution_time: 4.5,
      thread_id: 'Thread-1',
      compile_started_at: '2030-01-02T03:00:00.000001Z',
      compile_completed_at: '2030-01-02T03:00:01Z',
      execute_started_at: '2030-01-02T03:00:01Z',
      execute_completed_at: '2030-01-02T03:00:04.5Z',
      rows_affected: 3,
      adapter_response: '{"_message":"SELECT 3","rows_affected":3}',
      batch_results: null,
    });
    expect(extract.results[1]).toMatchObject({ status: 'fail', failures: 2, rows_affected: null });
    expect(JSON.parse(extract.results[2]!.batch_results ?? 'null')).toMatchObject({ failed: [] });
  });

  it('gives the command, selection, counts and timing of the invocation', () => {
    expect(extract.invocation).toMatchObject({
      command: 'build',
      selection: '["tag:nightly"]',
      exclusion: '[]',
      selector: null,
      full_refresh: true,
      target: 'prod',
      invocation_command: 'dbt build -s tag:nightly --full-refresh',
      elapsed_s: 10,
      completed_at: '2030-01-02T03:04:05.000000Z',
      started_at: '2030-01-02T03:03:55.000Z',
      result_count: 4,
      status_counts: '{"fail":1,"no-op":1,"partial success":1,"success":1}',
    });
  });
});

describe('extractRunResults (old shapes, synthetic)', () => {
  it('reads a v1 test failure count from message', () => {
    const extract = extractRunResults(
      bytes({
        metadata: syntheticMetadata('run-results', 1),
        results: [{ unique_id: 'test.p.t', status: 'fail', message: 4, timing: [] }],
        args: { which: 'test' },
        elapsed_time: 1,
      }),
    );
    expect(extract.results[0]).toMatchObject({ status: 'fail', failures: 4, message: '4' });
  });

  it('maps a pre-0.19 result nested in its node', () => {
    const extract = extractRunResults(
      bytes({
        results: [
          { node: { unique_id: 'model.p.a', resource_type: 'model' }, status: 'CREATE VIEW', error: null, fail: null, warn: null, skip: false, timing },
          { node: { unique_id: 'model.p.b', resource_type: 'model' }, status: null, error: 'Database Error', skip: false, timing: [] },
          { node: { unique_id: 'test.p.t', resource_type: 'test' }, status: 0.0, error: null, fail: null, warn: null, skip: false, timing: [] },
        ],
        generated_at: '2020-05-01T00:00:10Z',
        elapsed_time: 10,
      }),
      { invocationId: 'content-abc' },
    );
    expect(extract.results.map((r) => [r.unique_id, r.status, r.message, r.failures])).toEqual([
      ['model.p.a', 'success', 'CREATE VIEW', null],
      ['model.p.b', 'error', 'Database Error', null],
      ['test.p.t', 'pass', null, 0],
    ]);
    expect(extract.invocation).toMatchObject({ invocation_id: 'content-abc', command: null, started_at: '2020-05-01T00:00:00.000Z' });
  });

  it('lower-cases Fusion statuses', () => {
    const extract = extractRunResults(
      bytes({
        metadata: syntheticMetadata('run-results', 6),
        results: [{ unique_id: 'model.p.a', status: 'Success', timing: [] }],
        args: { command: 'build' },
      }),
    );
    expect(extract.results[0]!.status).toBe('success');
    expect(extract.invocation.command).toBe('build');
  });
});
