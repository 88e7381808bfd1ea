import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Synthetic artifacts for tests that must run without the corpus. They are shaped like dbt 1.9's
 * (manifest v12, run_results v6) only as far as dbtattic reads them: the metadata block, the
 * nodes map and the results with their statuses. They are ours, not dbt's, and never stand in for
 * a real artifact in a test that claims to read one.
 */
export interface SyntheticInvocation {
  invocationId: string;
  /** dbt's `args.which`. */
  command?: string;
  /** dbt's `args.target`. */
  target?: string;
  /** One result per status, on models model.synthetic.m0, m1, … */
  statuses?: string[];
  /** Each model's execution_time by index, instead of 0.01. */
  times?: number[];
  generatedAt?: string;
  /** Copies of each model, to make a bigger manifest. */
  padNodes?: number;
  /** A model's raw_code by index, instead of `select <index> as id`. */
  modelCode?: Record<number, string>;
  /** Data tests, in the manifest and, when they have a status, in the run results. */
  tests?: SyntheticTest[];
}

/** A data test test.synthetic.<name> on the model m<on>. */
export interface SyntheticTest {
  name: string;
  on: number;
  /** Its result; none: the run did not run it. */
  status?: string;
  rawCode?: string;
}

export const syntheticTestId = (name: string): string => `test.synthetic.${name}`;

function testNode(test: SyntheticTest): Record<string, unknown> {
  const model = `model.synthetic.m${test.on}`;
  return {
    unique_id: syntheticTestId(test.name),
    resource_type: 'test',
    name: test.name,
    raw_code: test.rawCode ?? '{{ test_not_null(**_dbt_generic_test_kwargs) }}',
    depends_on: { nodes: [model] },
    config: { materialized: 'test' },
    attached_node: model,
    column_name: 'id',
  };
}

const SCHEMA = 'https://schemas.getdbt.com/dbt';

function metadata(kind: string, version: string, inv: SyntheticInvocation): Record<string, unknown> {
  return {
    dbt_schema_version: `${SCHEMA}/${kind}/${version}.json`,
    dbt_version: '1.9.4',
    generated_at: inv.generatedAt ?? '2026-01-02T03:04:05.678901Z',
    invocation_id: inv.invocationId,
    env: {},
  };
}

export function syntheticManifest(inv: SyntheticInvocation): string {
  const nodes: Record<string, unknown> = {};
  const count = (inv.statuses ?? ['success']).length * (inv.padNodes ?? 1);
  for (let i = 0; i < count; i++) {
    const id = `model.synthetic.m${i}`;
    nodes[id] = {
      unique_id: id,
      resource_type: 'model',
      name: `m${i}`,
      raw_code: inv.modelCode?.[i] ?? `select ${i} as id`,
      depends_on: { nodes: [] },
      config: { materialized: 'view' },
    };
  }
  for (const test of inv.tests ?? []) nodes[syntheticTestId(test.name)] = testNode(test);
  const doc = {
    metadata: { ...metadata('manifest', 'v12', inv), adapter_type: 'duckdb' },
    nodes,
    sources: {},
    macros: {},
    docs: {},
    exposures: {},
    metrics: {},
    disabled: {},
  };
  return JSON.stringify(doc, null, 2);
}

export function syntheticRunResults(inv: SyntheticInvocation): string {
  const ran = (inv.statuses ?? ['success']).map((status, i) => ({ status, uniqueId: `model.synthetic.m${i}`, time: inv.times?.[i] ?? 0.01 }));
  for (const test of inv.tests ?? []) if (test.status) ran.push({ status: test.status, uniqueId: syntheticTestId(test.name), time: 0.01 });
  const results = ran.map(({ status, uniqueId, time }) => ({
    status,
    unique_id: uniqueId,
    execution_time: time,
    thread_id: 'Thread-1',
    timing: [],
    adapter_response: {},
    message: status === 'error' ? 'synthetic failure' : 'OK',
    failures: status === 'fail' ? 1 : null,
  }));
  const args = { which: inv.command ?? 'build', ...(inv.target ? { target: inv.target } : {}) };
  return JSON.stringify({ metadata: metadata('run-results', 'v6', inv), results, elapsed_time: 0.1, args }, null, 2);
}

/** A directory holding manifest.json and run_results.json of one synthetic invocation. */
export function writeSyntheticTarget(inv: SyntheticInvocation, dir = mkdtempSync(path.join(os.tmpdir(), 'attic-synthetic-'))): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'manifest.json'), syntheticManifest(inv));
  writeFileSync(path.join(dir, 'run_results.json'), syntheticRunResults(inv));
  return dir;
}
