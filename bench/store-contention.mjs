// One store, many processes at once, as VS Code and a shell make them: three reading commands
// in loops (history, history --failed, a view), beside `dbtattic run -- dbt build` of the
// fixture project's steps one after another (each run captures twice and catches the store up)
// and a forced compaction every half second. Every reading command must answer: DuckDB gives the
// write lock to one process at a time, so readers wait for catch-ups, and a reader that gives
// up after its 10 s (exit 5) is a failure here. Measured: the commands that answered and not,
// and how long the readers took (p50, p90, slowest).
//   BENCH_CONTENTION_SECONDS=60 (default)
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DBTATTIC_BIN, prepareReplay } from '../fixtures/replay.mjs';

const SECONDS = Number(process.env.BENCH_CONTENTION_SECONDS ?? 60);
const READERS = {
  history: ['history', '--json', '--limit', '100'],
  'history --failed': ['history', '--failed', '--json'],
  v_node_runtime: ['query', '--json', 'select count(*) from v_node_runtime'],
};

const work = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-bench-contention-'));
const replay = prepareReplay(work, { env: { ...process.env, NO_COLOR: '1' } });
const FIRST_STEPS = 4;
for (const step of replay.steps.slice(0, FIRST_STEPS)) replay.replayStep(step);

const env = { ...process.env, NO_COLOR: '1', PATH: `${path.join(work, 'bin')}${path.delimiter}${process.env.PATH}`, FAKE_DBT_DELAY_MS: '0' };
const attic = (args, extra = {}) =>
  new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [DBTATTIC_BIN, ...args], { cwd: replay.project, env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code, signal) => resolve({ code: code ?? signal, output, ms: performance.now() - started }));
  });

const until = Date.now() + SECONDS * 1000;
const reads = [];
const failures = [];
const counts = { runs: 0, runsFailed: 0, compactions: 0 };

async function reader(name, args) {
  while (Date.now() < until) {
    const result = await attic(args);
    reads.push(result.ms);
    if (result.code !== 0) failures.push(`${name}: exit ${result.code} after ${Math.round(result.ms)} ms: ${result.output.trim().slice(0, 200)}`);
  }
}

async function builds() {
  for (let i = FIRST_STEPS; Date.now() < until; i++) {
    const step = replay.steps[i % replay.steps.length];
    cpSync(path.join(replay.history, step.dir, 'project'), replay.project, { recursive: true });
    execFileSync(
      'git',
      ['-c', 'user.name=bench', '-c', 'user.email=bench@dbtattic.invalid', 'commit', '-q', '-a', '--allow-empty', '-m', `again: ${step.slug}`],
      { cwd: replay.project },
    );
    const result = await attic(['run', '--', ...step.command.split(' ')], { FAKE_DBT_REPLAY: path.join(replay.history, step.dir, 'target') });
    counts.runs++;
    if (result.code !== step.exit_code) {
      counts.runsFailed++;
      failures.push(`run of ${step.slug}: exit ${result.code}, dbt's was ${step.exit_code}: ${result.output.trim().slice(0, 200)}`);
    }
  }
}

async function compactions() {
  while (Date.now() < until) {
    // Exit 5 is its answer when a writer came between its copy and its swap: not a failure.
    await attic(['compact', '--force', '--quiet']);
    counts.compactions++;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

await Promise.all([...Object.entries(READERS).map(([name, args]) => reader(name, args)), builds(), compactions()]);
rmSync(work, { recursive: true, force: true });

reads.sort((a, b) => a - b);
const at = (q) => Math.round(reads[Math.min(reads.length - 1, Math.floor(q * reads.length))]);
for (const failure of failures) console.log(`  ${failure}`);
console.log(
  JSON.stringify(
    {
      seconds: SECONDS,
      reads: reads.length,
      reads_failed: failures.length - counts.runsFailed,
      read_ms: { p50: at(0.5), p90: at(0.9), slowest: Math.round(reads.at(-1)) },
      runs: counts.runs,
      runs_failed: counts.runsFailed,
      compactions: counts.compactions,
      pass: failures.length === 0 && reads.length > 0,
    },
    null,
    2,
  ),
);
