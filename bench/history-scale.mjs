// Issue 11: "10,000 nodes × 200 runs, every view interactive, the store smaller than the archive".
// SCALED, not real (see scaled-history.mjs): a real manifest from the corpus replicated to
// 10,000 nodes and replayed as 200 `dbt build` runs. Each run's target/ is written, then captured
// by the built CLI as a user would (`dbtattic capture`, which also ingests); then every view of
// schema/002-views.sql, `history`, `inspect`, `diff` and `state --last-success` are timed as
// whole processes, beside their peers in the same run: DuckDB's read_json over per-run copies
// of run_results.json and the newest manifests (history-peers.mjs), `tar czf` of each run's
// target/, and JSON.parse of the bytes a capture reads. Prints a table, then the figures as
// JSON; exit status 1 when a budget is missed.
//   node bench/history-scale.mjs [--nodes 10000] [--runs 200]
//   BENCH_HISTORY_RUNS=1000 npm run bench -- history-scale     the 1,000-run variant (budget 1 s)
//   BENCH_HISTORY_DIR=/tmp/h node bench/history-scale.mjs      keep the history there; measure it again next time
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { storeBytes, treeBytes } from './disk-bytes.mjs';
import { measurePeers, peerQuestions } from './history-peers.mjs';
import { invocationIdOf, ScaledHistory } from './scaled-history.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(here, '..', 'bin', 'dbtattic.js');
const VIEWS_SQL = path.join(here, '..', 'schema', '002-views.sql');
const QUERY_TIMEOUT_S = 60;

/** Budgets of issue 11: reading questions, capture against JSON.parse, sizes. */
export function budgets(runs) {
  return {
    read_ms: runs <= 200 ? 500 : 1000,
    floor_ms: 200,
    capture_vs_parse: 3,
    last_vs_10th: 1.2,
    archive_vs_tar: 0.25,
    rebuild_s: 300 * Math.max(1, runs / 200),
  };
}

/** The views the store defines, read from the schema so that a new view is measured too. */
export function viewNames() {
  return [...readFileSync(VIEWS_SQL, 'utf8').matchAll(/^CREATE OR REPLACE VIEW (\w+)/gm)].map((m) => m[1]);
}

/** Runs dbtattic; returns its wall milliseconds (process start included), status and stdout. */
function attic(project, store, args, { expect = [0], timeoutS = 600 } = {}) {
  const started = performance.now();
  const run = spawnSync(process.execPath, [BIN, '--store', store, ...args], {
    cwd: project,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    timeout: timeoutS * 1000,
    env: { ...process.env, NO_COLOR: '1' },
  });
  const ms = Math.round(performance.now() - started);
  if (!expect.includes(run.status)) throw new Error(`dbtattic ${args.join(' ')} exited ${run.status ?? run.signal} after ${ms} ms: ${run.stderr}`);
  return { ms, status: run.status, stdout: run.stdout };
}

/** Median of up to `repeat` runs; one is enough once a run is far over the budget. */
function timed(work, budgetMs, repeat) {
  const runs = [];
  for (let i = 0; i < repeat; i++) {
    runs.push(work());
    if (runs.at(-1).ms > 4 * budgetMs) break;
  }
  const sorted = [...runs].sort((a, b) => a.ms - b.ms);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
const runDir = (runsDir, r) => path.join(runsDir, String(r).padStart(5, '0'));

/** Milliseconds JSON.parse takes over the bytes of the files of a target/. */
function parseMs(target) {
  const buffers = ['manifest.json', 'run_results.json'].map((f) => readFileSync(path.join(target, f)));
  const started = performance.now();
  for (const b of buffers) JSON.parse(b.toString('utf8'));
  return performance.now() - started;
}

/** The runs whose capture is timed against JSON.parse: five around the 10th, the last five. */
function windows(runs) {
  const around = (k) => new Set(Array.from({ length: 5 }, (_, i) => k - 2 + i).filter((r) => r >= 1 && r <= runs));
  return { tenth: around(Math.min(10, runs)), last: around(runs - 2) };
}

/**
 * Builds the history run by run: write target/, tar it, capture it, move its files to the
 * per-run copies (manifests only for the newest two unless keepManifests).
 */
function buildHistory(history, { project, store, runsDir, scratch, keepManifests }) {
  const target = path.join(project, 'target');
  const { tenth, last } = windows(history.runs);
  const capture = { tenth: [], last: [], all: [], compactions: [] };
  const parse = { tenth: [], last: [] };
  let tarBytes = 0;
  const tarMs = [];
  let artifactBytes = 0;
  for (let r = 1; r <= history.runs; r++) {
    artifactBytes += history.writeRun(r, target).bytes;
    const tgz = path.join(scratch, 'run.tar.gz');
    const t0 = performance.now();
    const tar = spawnSync('tar', ['czf', tgz, '-C', target, '.']);
    tarMs.push(performance.now() - t0);
    if (tar.status !== 0) throw new Error(`tar czf: ${tar.stderr}`);
    tarBytes += statSync(tgz).size;
    unlinkSync(tgz);
    const parsed = tenth.has(r) || last.has(r) ? parseMs(target) : null;
    if (tenth.has(r)) parse.tenth.push(parsed);
    if (last.has(r)) parse.last.push(parsed);
    const { ms } = attic(project, store, ['capture', '--quiet']);
    capture.all.push(ms);
    if (tenth.has(r)) capture.tenth.push(ms);
    if (last.has(r)) capture.last.push(ms);
    const compacting = waitForCompaction(store);
    if (compacting > 0) capture.compactions.push({ run: r, ms: compacting });
    const copy = runDir(runsDir, r);
    mkdirSync(copy, { recursive: true });
    for (const file of ['manifest.json', 'run_results.json']) renameSync(path.join(target, file), path.join(copy, file));
    if (!keepManifests && r > 2) rmSync(path.join(runDir(runsDir, r - 2), 'manifest.json'));
    if (r % 10 === 0 || r === history.runs) process.stderr.write(`history-scale: ${r} of ${history.runs} runs captured (last ${ms} ms)\n`);
  }
  return { capture, parse, tarBytes, tarMs, artifactBytes };
}

/**
 * A capture that leaves the store wasteful compacts it in the background (store/sync/compact-store.ts).
 * Runs here follow each other at once, where a user's are minutes apart: the next capture waits
 * for that copy, so that it ingests instead of finding the store busy, and the wait is reported.
 */
function waitForCompaction(store) {
  const claim = path.join(store, 'store.duckdb.compacting');
  const t0 = performance.now();
  while (existsSync(claim) && performance.now() - t0 < 20 * 60_000) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  return existsSync(claim) || performance.now() - t0 < 1 ? 0 : Math.round(performance.now() - t0);
}

/** Times each reading question and its peer; returns rows of the table. */
async function readingRows(history, paths, limits) {
  const { project, store, runsDir } = paths;
  const newest = { id: invocationIdOf(history.runs), manifest: path.join(runDir(runsDir, history.runs), 'manifest.json') };
  const previous = { id: invocationIdOf(history.runs - 1), manifest: path.join(runDir(runsDir, history.runs - 1), 'manifest.json') };
  // Building the history leaves gigabytes of per-run copies for the kernel to write back; the
  // first questions timed right after paid for it (the floor: 250 ms there, 140-150 ms minutes later).
  spawnSync('sync');
  attic(project, store, ['query', 'select 1']); // warms the OS file cache, as a store in use would be
  const timeFloor = () => timed(() => attic(project, store, ['query', 'select 1']), limits.floor_ms, paths.repeat).ms;
  const firstFloor = timeFloor();
  const rows = [{ question: 'query "select 1" (floor)', budget_ms: limits.floor_ms }];
  for (const view of viewNames()) {
    const run = timed(
      () =>
        attic(project, store, ['query', `select count(*) AS n from ${view}`, '--json', '--timeout', String(QUERY_TIMEOUT_S)], {
          expect: [0, 1, 5, 6, 7, null],
          timeoutS: QUERY_TIMEOUT_S + 120,
        }),
      limits.read_ms,
      paths.repeat,
    );
    const count = run.status === 0 ? Number(JSON.parse(run.stdout)[0].n) : null;
    rows.push({ question: view, ms: run.ms, count, status: run.status, budget_ms: limits.read_ms });
  }
  const stateOut = path.join(path.dirname(store), 'state-out');
  const commands = {
    history: ['history'],
    inspect: ['inspect', newest.id],
    diff: ['diff', previous.id, newest.id],
    'state --last-success': ['state', '--last-success', '--out', stateOut],
    'state --last-success, none matching': ['state', '--last-success', '--command', 'seed', '--out', stateOut],
  };
  for (const [question, args] of Object.entries(commands)) {
    const run = timed(() => attic(project, store, args, { expect: question.endsWith('none matching') ? [3] : [0] }), limits.read_ms, paths.repeat);
    rows.push({ question, ms: run.ms, budget_ms: limits.read_ms });
  }
  // Timed again once the questions above ran: right after a build, even sync and a warm-up left
  // the first timings high for a second or so (226 ms, then 130 ms on the same history measured
  // again, where every view, floor included, took 130-170 ms in both). The floor is the later
  // figure; the first is kept beside it.
  Object.assign(rows[0], { ms: timeFloor(), first_ms: firstFloor });
  const peers = await measurePeers(peerQuestions(runsDir, newest, previous));
  for (const row of rows) {
    const peer = peers[row.question];
    if (!peer) continue;
    row.peer_ms = peer.ms;
    if (peer.rows.length === 1 && 'n' in peer.rows[0]) row.peer_count = Number(peer.rows[0].n);
  }
  for (const row of rows)
    row.pass = row.status === undefined || row.status === 0 ? row.ms < row.budget_ms && (row.peer_ms === undefined || row.ms < row.peer_ms) : false;
  return rows;
}

/**
 * The whole benchmark. `dir`: where to build (kept when given; a new temp directory, removed
 * after, when not); a history built there before at the same size is measured again, not rebuilt.
 * `keepManifests`: keep every run's manifest copy (small sizes only).
 * `repeat`: runs of each reading question, the median counts.
 */
export async function benchHistoryScale({ nodes = 10_000, runs = 200, dir, keepManifests = false, repeat = 3 } = {}) {
  const scratch = dir ?? mkdtempSync(path.join(os.tmpdir(), 'attic-bench-history-scale-'));
  const limits = budgets(runs);
  try {
    const paths = {
      project: path.join(scratch, 'project'),
      store: path.join(scratch, 'store'),
      runsDir: path.join(scratch, 'runs'),
      scratch,
      keepManifests,
      repeat,
    };
    mkdirSync(path.join(paths.project, 'target'), { recursive: true });
    writeFileSync(path.join(paths.project, 'dbt_project.yml'), "name: hubspot_integration_tests\nversion: '1.0'\nprofile: bench\n");
    const t0 = performance.now();
    const history = new ScaledHistory(nodes, runs);
    const cached = path.join(scratch, 'built.json');
    const reuse = existsSync(cached) && JSON.parse(readFileSync(cached, 'utf8'));
    const built =
      reuse && reuse.nodes === nodes && reuse.runs === runs
        ? reuse
        : { nodes, runs, ...buildHistory(history, paths), store_bytes: storeBytes(paths.store), build_s: Math.round((performance.now() - t0) / 1000) };
    if (dir) writeFileSync(cached, JSON.stringify(built));
    const { store_bytes, build_s } = built;
    const reading = await readingRows(history, paths, limits);
    // The reading rows go to stderr first: a rebuild that fails (at 1,000 runs it once ran out
    // of the writer's memory) would otherwise take half an hour of measurements with it.
    process.stderr.write(`history-scale: reading questions ${JSON.stringify(reading)}\n`);
    const t1 = performance.now();
    // Timed out at twice its budget, not at attic's 600 s: that killed the 1,000-run rebuild, whose budget is 1,500 s.
    const rebuilt = attic(paths.project, paths.store, ['rebuild', '--json'], { expect: [0, 1, 4, 5, 6, 7, 70, null], timeoutS: 2 * limits.rebuild_s });
    const rebuild_s = Number(((performance.now() - t1) / 1000).toFixed(1));
    const rebuild_error =
      rebuilt.status === 0
        ? null
        : rebuilt.status === null
          ? `stopped after ${2 * limits.rebuild_s} s`
          : `exit ${rebuilt.status}: ${rebuilt.stdout.trim().slice(0, 300)}`;
    const rebuilt_store_bytes = storeBytes(paths.store);
    const archive_bytes = treeBytes(path.join(paths.store, 'archive')); // with the records `state` wrote
    const ingest = ingestRows(built, limits);
    const sizes = { store_bytes, rebuilt_store_bytes, archive_bytes, tar_czf_bytes: built.tarBytes, artifact_bytes: built.artifactBytes };
    const checks = {
      store_le_archive: store_bytes <= archive_bytes && rebuilt_store_bytes <= archive_bytes,
      archive_le_quarter_tar: archive_bytes <= limits.archive_vs_tar * built.tarBytes,
      rebuild_in_budget: rebuild_error === null && rebuild_s < limits.rebuild_s,
    };
    const pass = reading.every((r) => r.pass) && ingest.every((r) => r.pass) && Object.values(checks).every(Boolean);
    return {
      name: 'history-scale',
      data: `SCALED: ${history.seed.label} (a real manifest, ${history.nodes.length} nodes after replication with dependencies rewired per copy) × ${runs} dbt build runs; ~1% of models changed per run (${history.changedPerRun}); run results, times and failures synthetic`,
      machine: machineLine(),
      commit: commitOf(),
      nodes: history.nodes.length,
      runs,
      results_per_run: history.executed.length,
      load_average: os.loadavg()[0].toFixed(1),
      build_s,
      reading,
      ingest,
      sizes,
      rebuild_s,
      rebuild_error,
      checks,
      budgets: limits,
      pass,
      // After which runs the store was compacted in the background, and how long that took.
      background_compactions: built.capture.compactions ?? [],
    };
  } finally {
    if (!dir) rmSync(scratch, { recursive: true, force: true });
  }
}

/** What the figures were measured on: they mean little without it. */
function machineLine() {
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `${cpu}, ${os.availableParallelism()} cores, ${Math.round(os.totalmem() / 2 ** 30)} GB; node ${process.version} on ${process.platform}-${process.arch}`;
}

/** The commit of dbtattic measured (with "+changes" when the tree differs from it). */
function commitOf() {
  const git = (args) => spawnSync('git', args, { cwd: here, encoding: 'utf8' });
  const head = git(['rev-parse', '--short=10', 'HEAD']);
  if (head.status !== 0) return 'unknown';
  return `${head.stdout.trim()}${git(['diff', '--quiet', 'HEAD', '--', 'src', 'schema']).status === 0 ? '' : '+changes'}`;
}

/** Capture + ingest of the 10th and the last runs (medians of five) against JSON.parse. */
function ingestRows(built, limits) {
  const tenth = median(built.capture.tenth);
  const last = median(built.capture.last);
  const parseTenth = Math.round(median(built.parse.tenth));
  const parseLast = Math.round(median(built.parse.last));
  return [
    {
      question: 'capture + ingest, 10th run',
      ms: tenth,
      peer: 'JSON.parse',
      peer_ms: parseTenth,
      budget: `<= ${limits.capture_vs_parse}x JSON.parse`,
      pass: tenth <= limits.capture_vs_parse * parseTenth,
    },
    {
      question: 'capture + ingest, last run',
      ms: last,
      peer: 'JSON.parse',
      peer_ms: parseLast,
      budget: `<= ${limits.capture_vs_parse}x JSON.parse, <= ${limits.last_vs_10th}x the 10th`,
      pass: last <= limits.capture_vs_parse * parseLast && last <= limits.last_vs_10th * tenth,
    },
    { question: 'tar czf of one run', ms: Math.round(median(built.tarMs)), pass: true },
  ];
}

/** The table the README shows. */
export function formatTable(result) {
  const lines = [
    `${result.data}`,
    `${result.nodes} nodes × ${result.runs} runs, ${result.results_per_run} results per run; dbtattic ${result.commit}; history built in ${result.build_s} s`,
    `${result.machine}; load average ${result.load_average} at the end`,
    '',
    '| question | dbtattic | peer | budget | pass |',
    '|---|---|---|---|---|',
  ];
  const ms = (v) => (v === undefined ? '—' : `${v} ms`);
  for (const r of result.reading) {
    const peer = r.peer_ms === undefined ? '—' : `read_json ${r.peer_ms} ms`;
    const first = r.first_ms === undefined ? '' : ` (first ${ms(r.first_ms)})`;
    const shown = r.status === null ? `killed after ${ms(r.ms)}` : r.status > 0 ? `exit ${r.status} after ${ms(r.ms)}` : `${ms(r.ms)}${first}`;
    lines.push(`| ${r.question} | ${shown} | ${peer} | < ${r.budget_ms} ms${r.peer_ms === undefined ? '' : ', < peer'} | ${r.pass ? 'yes' : 'NO'} |`);
  }
  for (const r of result.ingest)
    lines.push(`| ${r.question} | ${ms(r.ms)} | ${r.peer ? `${r.peer} ${r.peer_ms} ms` : '—'} | ${r.budget ?? '—'} | ${r.pass ? 'yes' : 'NO'} |`);
  const mb = (b) => `${(b / 1e6).toFixed(1)} MB`;
  const s = result.sizes;
  lines.push(
    `| store bytes (after captures / after rebuild) | ${mb(s.store_bytes)} / ${mb(s.rebuilt_store_bytes)} | archive ${mb(s.archive_bytes)} | <= archive | ${result.checks.store_le_archive ? 'yes' : 'NO'} |`,
  );
  lines.push(
    `| archive bytes | ${mb(s.archive_bytes)} | tar czf per run ${mb(s.tar_czf_bytes)} (artifacts ${mb(s.artifact_bytes)}) | <= 1/4 of tar czf | ${result.checks.archive_le_quarter_tar ? 'yes' : 'NO'} |`,
  );
  lines.push(
    `| rebuild | ${result.rebuild_error ? `failed after ${result.rebuild_s} s (${result.rebuild_error})` : `${result.rebuild_s} s`} | — | < ${result.budgets.rebuild_s} s | ${result.checks.rebuild_in_budget ? 'yes' : 'NO'} |`,
  );
  return lines.join('\n');
}

const USAGE = `usage: node bench/history-scale.mjs [--nodes N] [--runs N]
  env: BENCH_HISTORY_NODES, BENCH_HISTORY_RUNS (defaults 10000, 200); BENCH_HISTORY_DIR keeps the history for a later run`;

/** The sizes asked for; an unknown flag or a bad number stops before an hour of building. */
function sizesAsked() {
  let values;
  try {
    ({ values } = parseArgs({ options: { nodes: { type: 'string' }, runs: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true }));
  } catch (error) {
    console.error(`${error.message}\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const size = (given, env, fallback) => {
    const n = Number(given ?? process.env[env] ?? fallback);
    if (!Number.isInteger(n) || n < 1) {
      console.error(`not a positive whole number: ${given ?? process.env[env]}\n${USAGE}`);
      process.exit(2);
    }
    return n;
  };
  return { nodes: size(values.nodes, 'BENCH_HISTORY_NODES', 10_000), runs: size(values.runs, 'BENCH_HISTORY_RUNS', 200) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const sizes = sizesAsked();
  const dir = process.env.BENCH_HISTORY_DIR;
  if (dir) mkdirSync(dir, { recursive: true });
  const result = await benchHistoryScale({ ...sizes, dir });
  console.log(formatTable(result));
  console.log(JSON.stringify(result, null, 2));
  if (!result.pass) process.exitCode = 1;
}
