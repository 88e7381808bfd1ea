// The history of bench/history-scale.mjs. SCALED, not real: a real manifest from the corpus
// (283 nodes of Fivetran's hubspot package, dbt 1.11) replicated to the node count asked for,
// each copy's dependencies rewired to its own copy (fixtures/scale-manifest.mjs names the
// copies), and replayed as `dbt build` runs an hour apart. Per run about 1% of the models
// change their code (the change stays in later runs), and run_results.json has a result for
// every model, seed, snapshot and test: times synthetic (±20% per run, one model in a hundred
// three times slower in the last run), a test failing now and then, never in the last run.
// Each node is serialised once; a run re-serialises only the nodes it changes, so writing a run's
// target/ costs a join and a write, and memory stays at about two manifests.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { replicaId } from '../fixtures/scale-manifest.mjs';
import { seedManifest } from './scaled-manifest.mjs';

export const HISTORY_SEED = 'fivetran-hubspot/docs-history/12_2026-06-22_be3a903c_1.11.11-postgres/manifest.json';
const START = Date.parse('2026-03-01T00:00:00Z');
const THREADS = 8;
const EXECUTED = new Set(['model', 'seed', 'snapshot', 'test']);
const CHANGED_SHARE = 0.01;

/** When run r starts: an hour after the run before it. */
const startOf = (r) => new Date(START + r * 3_600_000);

/** A deterministic number in [0, 1) for a pair of integers. */
function unit(a, b) {
  const x = Math.sin(a * 12.9898 + b * 78.233) * 43758.5453;
  return x - Math.floor(x);
}

/** Run r's invocation id (runs count from 1). */
export function invocationIdOf(r) {
  return `b15c0000-0000-4000-8000-${String(r).padStart(12, '0')}`;
}

const sha256 = (text) => createHash('sha256').update(text).digest('hex');

export class ScaledHistory {
  /** nodeCount nodes (copies of the seed's, cut at that count), `runs` runs. */
  constructor(nodeCount, runs) {
    this.seed = seedManifest(HISTORY_SEED);
    const seed = JSON.parse(readFileSync(this.seed.file, 'utf8'));
    this.runs = runs;
    this.metadata = seed.metadata;
    this.nodes = replicate(seed.nodes, nodeCount);
    this.text = this.nodes.map(nodeText);
    this.models = this.nodes.flatMap((n, i) => (n.resource_type === 'model' ? [i] : []));
    this.executed = this.nodes.flatMap((n, i) => (EXECUTED.has(n.resource_type) ? [i] : []));
    this.tail = manifestTail(seed, this.nodes);
    this.changedPerRun = Math.max(1, Math.round(this.models.length * CHANGED_SHARE));
    this.slowInLastRun = new Set(this.models.filter((_, k) => k % 100 === 0));
  }

  /** Writes run r's manifest.json and run_results.json into `dir`; returns what it wrote. */
  writeRun(r, dir) {
    if (r > 1) this.changeModels(r);
    const at = startOf(r);
    const metadata = {
      ...this.metadata,
      invocation_id: invocationIdOf(r),
      generated_at: at.toISOString(),
      invocation_started_at: at.toISOString(),
      run_started_at: at.toISOString(),
    };
    const manifest = `{"metadata": ${JSON.stringify(metadata)}, "nodes": {${this.text.join(', ')}}${this.tail}}`;
    const results = JSON.stringify(this.runResults(r, at));
    writeFileSync(path.join(dir, 'manifest.json'), manifest);
    writeFileSync(path.join(dir, 'run_results.json'), results);
    return { bytes: Buffer.byteLength(manifest) + Buffer.byteLength(results) };
  }

  /**
   * Run r's run_results.json alone, into `dir`, as writeRun writes it: results do not depend on
   * the models' changes, so any run's can be written again later (a peer reading the raw files).
   */
  writeRunResults(r, dir) {
    writeFileSync(path.join(dir, 'run_results.json'), JSON.stringify(this.runResults(r, startOf(r))));
  }

  /** About 1% of the models get a new revision of their code in run r. */
  changeModels(r) {
    const picked = new Set();
    for (let k = 0; picked.size < this.changedPerRun && k < this.changedPerRun * 4; k++) {
      picked.add(this.models[Math.floor(unit(r, k + 1) * this.models.length)]);
    }
    for (const i of picked) {
      const node = this.nodes[i];
      const mark = `\n-- revision ${r}\n`;
      const rawCode = `${node.raw_code ?? ''}${mark}`;
      this.nodes[i] = {
        ...node,
        raw_code: rawCode,
        checksum: { name: 'sha256', checksum: sha256(rawCode) },
        compiled_code: node.compiled_code == null ? node.compiled_code : `${node.compiled_code}${mark}`,
      };
      this.text[i] = nodeText(this.nodes[i]);
    }
  }

  runResults(r, at) {
    const clock = new Array(THREADS).fill(at.getTime() + 5_000);
    const last = r === this.runs;
    const results = this.executed.map((i) => result(this.nodes[i], i, r, { last, slower: last && this.slowInLastRun.has(i) }, clock));
    const ended = Math.max(...clock);
    return {
      metadata: {
        dbt_schema_version: 'https://schemas.getdbt.com/dbt/run-results/v6.json',
        dbt_version: this.metadata.dbt_version,
        generated_at: new Date(ended).toISOString(),
        invocation_id: invocationIdOf(r),
        invocation_started_at: at.toISOString(),
        env: {},
      },
      results,
      elapsed_time: (ended - at.getTime()) / 1000,
      args: {
        which: 'build',
        invocation_command: 'dbt build',
        target: 'prod',
        select: [],
        exclude: [],
        threads: THREADS,
        write_json: true,
        project_dir: '/home/runner/hubspot_integration_tests',
      },
    };
  }
}

/** The first `count` nodes of copies 0, 1, 2, … of the seed's, each copy wired to itself. */
function replicate(seedNodes, count) {
  const ids = Object.keys(seedNodes);
  const position = new Map(ids.map((id, j) => [id, j]));
  const copyOf = (id, copy) => {
    const j = position.get(id);
    if (j === undefined) return id; // a source, macro or node of no copy: shared by all copies
    return copy * ids.length + j < count ? replicaId(id, copy) : null;
  };
  const nodes = [];
  for (let i = 0; i < count; i++) {
    const copy = Math.floor(i / ids.length);
    const node = seedNodes[ids[i % ids.length]];
    const name = copy === 0 ? node.name : `${node.name}_x${copy}`;
    const dependsOn = node.depends_on
      ? { ...node.depends_on, nodes: (node.depends_on.nodes ?? []).map((d) => copyOf(d, copy)).filter(Boolean) }
      : node.depends_on;
    const copied = { ...node, unique_id: replicaId(node.unique_id, copy), name, depends_on: dependsOn };
    if (Array.isArray(node.fqn)) copied.fqn = [...node.fqn.slice(0, -1), name];
    if (node.attached_node) copied.attached_node = copyOf(node.attached_node, copy);
    nodes.push(copied);
  }
  return nodes;
}

const nodeText = (node) => `${JSON.stringify(node.unique_id)}: ${JSON.stringify(node)}`;

/** Everything after `nodes`, with parent and child maps of the grown graph. */
function manifestTail(seed, nodes) {
  const parents = {};
  const children = {};
  for (const id of [...nodes.map((n) => n.unique_id), ...Object.keys(seed.sources ?? {})]) children[id] = [];
  for (const node of nodes) {
    parents[node.unique_id] = node.depends_on?.nodes ?? [];
    for (const p of parents[node.unique_id]) (children[p] ??= []).push(node.unique_id);
  }
  for (const id of Object.keys(seed.sources ?? {})) parents[id] = [];
  let tail = '';
  for (const [key, value] of Object.entries(seed)) {
    if (key === 'metadata' || key === 'nodes') continue;
    const grown = key === 'parent_map' ? parents : key === 'child_map' ? children : value;
    tail += `, ${JSON.stringify(key)}: ${JSON.stringify(grown)}`;
  }
  return tail;
}

/** Node i's result in run r, its time laid after the previous result on its thread. */
function result(node, i, r, { last, slower }, clock) {
  const type = node.resource_type;
  const base = type === 'model' ? 0.5 + 20 * unit(i, 1) ** 3 : type === 'test' ? 0.05 + 2 * unit(i, 2) ** 2 : 0.2 + unit(i, 3);
  const seconds = base * (0.8 + 0.4 * unit(i, r + 3)) * (slower ? 3 : 1);
  const failed = type === 'test' && !last && unit(i, r * 31 + 7) < 0.0005;
  const thread = i % THREADS;
  const compileStart = clock[thread];
  const executeStart = compileStart + 5;
  clock[thread] = executeStart + Math.round(seconds * 1000);
  const rows = Math.floor(unit(i, 4) * 100_000);
  const iso = (ms) => new Date(ms).toISOString();
  return {
    status: type === 'test' ? (failed ? 'fail' : 'pass') : 'success',
    timing: [
      { name: 'compile', started_at: iso(compileStart), completed_at: iso(executeStart) },
      { name: 'execute', started_at: iso(executeStart), completed_at: iso(clock[thread]) },
    ],
    thread_id: `Thread-${thread + 1} (worker)`,
    execution_time: seconds,
    adapter_response:
      type === 'test' ? { _message: 'SELECT 1', code: 'SELECT', rows_affected: 1 } : { _message: `SELECT ${rows}`, code: 'SELECT', rows_affected: rows },
    message: type === 'test' ? (failed ? 'Got 3 results, configured to fail if != 0' : null) : `SELECT ${rows}`,
    failures: type === 'test' ? (failed ? 3 : 0) : null,
    unique_id: node.unique_id,
    compiled: true,
    compiled_code: null,
    relation_name: node.relation_name ?? null,
    batch_results: null,
  };
}
