import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Step, StepDefinition } from '../../fixtures/generate.mjs';
import { readJson, type Json } from '../helpers/artifact-facts.js';
import { captureSequence, type CapturedSequence } from '../helpers/captured-sequence.js';
import { SCHEMAS_DIR } from '../helpers/corpus.js';
import { stepFile } from '../helpers/manifest-graph.js';

/**
 * Two jobs build disjoint halves of our synthetic project (fixtures/, labelled synthetic) on
 * different schedules; `state --per-node` must hold each node's own newest build, be valid for
 * dbt, and make dbt's state:modified see exactly what changed since each node's own build.
 */
const job = (n: number, slug: string, select: string[], hours: number, edits: StepDefinition['edits'] = []): StepDefinition => ({
  step: n,
  slug,
  command: `dbt build --select ${select.join(' ')}`,
  kind: 'invocation',
  which: 'build',
  select,
  edits,
  description: slug,
  hours,
});
const JOB_A = ['country_codes', 'stg_customers', 'stg_orders', 'stg_payments'];
const JOB_B = ['orders', 'customers', 'order_totals', 'orders_snapshot'];
const swap = (file: string, from: string, to: string): StepDefinition['edits'][number] => ({ file, replace: [from, to] });
const STEPS: StepDefinition[] = [
  job(1, 'job-a', JOB_A, 0),
  job(2, 'job-b', JOB_B, 1),
  { step: 3, slug: 'freshness', command: 'dbt source freshness', kind: 'freshness', select: [], edits: [], description: 'freshness', hours: 1.5 },
  // Job A runs again after order_totals (job B's) was edited: its manifest holds code job B never built.
  job(4, 'job-a-again', JOB_A, 2, [swap('models/marts/order_totals.sql', 'count(*) as order_count', 'count(distinct order_id) as order_count')]),
  {
    step: 5,
    slug: 'parse',
    command: 'dbt parse',
    kind: 'parse',
    select: [],
    edits: [
      swap(
        'models/marts/customers.sql',
        '    from orders\n    group by customer_id',
        "    from orders\n    where status_group != 'returned'\n    group by customer_id",
      ),
    ],
    description: 'parse',
    hours: 3,
  },
];

let seq: CapturedSequence;
beforeAll(async () => {
  seq = await captureSequence(STEPS, 'per-node');
}, 240_000);
afterAll(() => seq?.remove());

const BUILT = ['model', 'seed', 'snapshot', 'test'];
const doc = (step: Step, file: string): Json | null =>
  existsSync(stepFile(seq.history, step, file)) && step.artifacts_written.includes(file) ? readJson(stepFile(seq.history, step, file)) : null;
const nodesOf = (manifest: Json): Record<string, Json> => manifest.nodes as Record<string, Json>;

/** From the JSON alone: each node's newest successful build (step), newest first. */
function newestBuilds(): Map<string, Step> {
  const found = new Map<string, Step>();
  for (const step of [...seq.steps].reverse()) {
    for (const r of (doc(step, 'run_results.json')?.results as Json[]) ?? []) {
      if (['success', 'pass'].includes(String(r.status)) && !found.has(String(r.unique_id))) found.set(String(r.unique_id), step);
    }
  }
  return found;
}

/** dbt's state:modified, as it compares a node with its state entry: checksum, config, relation. */
function stateModified(current: Json, state: Json): string[] {
  const old = nodesOf(state);
  return Object.entries(nodesOf(current))
    .filter(([, n]) => BUILT.includes(String(n.resource_type)))
    .filter(([id, n]) => {
      const o = old[id];
      if (!o) return true;
      const relation = (x: Json): string => JSON.stringify([x.database, x.schema, x.alias]);
      return (
        (n.checksum as Json).checksum !== (o.checksum as Json).checksum || JSON.stringify(n.config) !== JSON.stringify(o.config) || relation(n) !== relation(o)
      );
    })
    .map(([id]) => id)
    .sort();
}

describe('state --per-node', () => {
  let dir: string;
  let provenance: { nodes: Record<string, string>; invocations: string[]; left_out: string[]; path: string };
  beforeAll(async () => {
    provenance = await seq.json(['state', '--per-node']);
    dir = provenance.path;
  });

  it("holds both jobs' halves, each node from its own newest successful build", () => {
    const expected = newestBuilds();
    const current = doc(seq.step('parse'), 'manifest.json')!;
    const built = Object.keys(nodesOf(current)).filter((id) => expected.has(id));
    expect(Object.keys(provenance.nodes).sort()).toEqual(built.sort());
    for (const id of built) expect(provenance.nodes[id], id).toBe(expected.get(id)!.invocation_id);
    expect(new Set(Object.values(provenance.nodes))).toEqual(new Set([seq.step('job-b').invocation_id, seq.step('job-a-again').invocation_id]));
    const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Json;
    for (const id of built) expect(nodesOf(manifest)[id], id).toEqual(nodesOf(doc(expected.get(id)!, 'manifest.json')!)[id]);
    const env = (manifest.metadata as Json).env as Json;
    expect(env.DBTATTIC_STATE).toBe('per-node');
    expect(String(env.DBTATTIC_STATE_INVOCATIONS).split(',').sort()).toEqual([...provenance.invocations].sort());
    const results = JSON.parse(readFileSync(path.join(dir, 'run_results.json'), 'utf8')) as Json;
    expect(((results.results as Json[]) ?? []).map((r) => r.unique_id).sort()).toEqual(built.sort());
  });

  it.skipIf(!existsSync(SCHEMAS_DIR))("validates against dbt's JSON Schemas of the newest manifest's version", () => {
    const addFormats = addFormatsModule.default ?? addFormatsModule;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const files = readdirSync(dir).filter((f) => f !== 'dbtattic-state.json' && f !== '.dbtattic-state');
    expect(files.sort()).toEqual(['manifest.json', 'run_results.json', 'sources.json']);
    const newest = String((doc(seq.step('parse'), 'manifest.json')!.metadata as Json).dbt_schema_version);
    for (const file of files) {
      const artifact = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Json;
      const version = String((artifact.metadata as Json).dbt_schema_version);
      if (file === 'manifest.json') expect(version).toBe(newest);
      const schemaFile = path.join(SCHEMAS_DIR, version.replace('https://schemas.getdbt.com/dbt/', ''));
      const validate = ajv.compile(JSON.parse(readFileSync(schemaFile, 'utf8')));
      expect(validate(artifact) ? [] : (validate.errors ?? []).slice(0, 5), file).toEqual([]);
    }
  });

  it('state:modified (checksum, config, relation) sees exactly the nodes whose code changed since their own last build', () => {
    const current = doc(seq.step('parse'), 'manifest.json')!;
    const builds = newestBuilds();
    const changed = Object.entries(nodesOf(current))
      .filter(([, n]) => BUILT.includes(String(n.resource_type)))
      .filter(([id, n]) => {
        const then = builds.get(id);
        return !then || (nodesOf(doc(then, 'manifest.json')!)[id]?.checksum as Json | undefined)?.checksum !== (n.checksum as Json).checksum;
      })
      .map(([id]) => id)
      .sort();
    // Edited at the parse, and edited before job A's second run but never built since; the test
    // on a source, which neither job selects, was never built at all.
    expect(changed).toEqual(['model.attic_shop.customers', 'model.attic_shop.order_totals', 'test.attic_shop.source_not_null_raw_orders_id.f232a64478']);
    const state = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Json;
    expect(stateModified(current, state)).toEqual(changed);
    // The newest single success (job A's second run) already holds order_totals' new code: it would miss it.
    expect(stateModified(current, doc(seq.step('job-a-again'), 'manifest.json')!)).toEqual(['model.attic_shop.customers']);
    expect(changed).toContain('model.attic_shop.order_totals');
  });
});
