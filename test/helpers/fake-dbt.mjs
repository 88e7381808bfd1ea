#!/usr/bin/env node
/**
 * A stand-in for `dbt` in tests (dbt cannot be installed here). It treats target/ as dbt 1.x does
 * but runs nothing: it replays the artifacts in $FAKE_DBT_REPLAY, byte for byte, at the moments
 * dbt writes them, with dbt-like log lines and dbt's exit codes. Environment:
 *   FAKE_DBT_REPLAY    directory holding any of manifest.json, run_results.json, sources.json,
 *                      catalog.json, semantic_manifest.json (unset: write nothing)
 *   FAKE_DBT_DELAY_MS  time each replayed result "runs" (default 50)
 *   FAKE_DBT_EXIT      exit code of a completed invocation, instead of the one read from the results
 *   FAKE_DBT_HANG=1    after writing the manifest, hang inside the first node until a signal
 *   FAKE_DBT_ARGS_OUT  file to write the selectors it received to, as JSON (tests of `plan --format selector`)
 *   DBT_LOG_PATH, DBT_LOG_FORMAT, DBT_LOG_FORMAT_FILE, DBT_LOG_FILE_MAX_BYTES (and their flags)
 *                      as dbt reads them: the log file (logs/dbt.log) in debug text or JSON lines,
 *                      rotated as Python's RotatingFileHandler does (five backups)
 *   FAKE_DBT_LOG_COPY  directory where each invocation's log records are also written, whole
 *   FAKE_DBT_CANCEL_MS time the clean-up after Ctrl-C takes (cancelling the running query) before
 *                      the partial run_results.json is written (default 0)
 * SQL: each node the replayed manifest says was compiled (compiled_path) or run (build_path) gets
 * its file under target/compiled and target/run, copied from the replay directory as the node
 * runs; dbt deletes nothing there, so files of earlier invocations stay.
 * Exit codes: 0 success, 1 a result failed, 2 usage error / Ctrl-C (dbt's ExceptionExit),
 * 3 a broken test setup (never produced by dbt). SIGTERM is left to its default: dbt (Python)
 * has no handler for it and dies of the signal. A second SIGINT during the clean-up is a second
 * KeyboardInterrupt that nothing catches: dbt dies of it and writes no run_results.json.
 */
import { existsSync, readFileSync, writeFileSync, mkdirSync, statSync } from 'node:fs';
import { openLog } from './fake-dbt-log.mjs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** What each command writes besides manifest.json: its results file and what follows it. */
const COMMANDS = {
  build: { results: 'run_results.json' },
  run: { results: 'run_results.json' },
  test: { results: 'run_results.json' },
  seed: { results: 'run_results.json' },
  snapshot: { results: 'run_results.json' },
  compile: { results: 'run_results.json' },
  'docs generate': { results: 'run_results.json', after: 'catalog.json' },
  'source freshness': { results: 'sources.json' },
  parse: {},
  ls: {},
  list: {},
  debug: { noManifest: true },
};
const VALUE_FLAGS = new Set([
  '--project-dir', '--target-path', '--target', '-t', '--select', '-s', '--models', '-m', '--exclude',
  '--selector', '--profiles-dir', '--profile', '--vars', '--threads', '--state', '--log-format',
  '--log-level', '--log-path', '--resource-type', '--output', '--defer-state', '--indirect-selection',
  '--event-time-start', '--event-time-end', '--warn-error-options', '--printer-width',
  '--log-format-file', '--log-file-max-bytes',
]);
const MULTI_FLAGS = new Set(['--select', '-s', '--models', '-m', '--exclude', '--resource-type']);
const FAILED = new Set(['error', 'fail', 'runtime error', 'partial success', 'skipped']);

/** A click usage error: dbt prints it on stderr and exits 2. `group` names the subcommand group. */
class UsageError extends Error {
  constructor(message, group = '') {
    super(message);
    this.group = group;
  }
}

/** `--quiet` / `-q` silences all but errors, as in dbt: tests use it to keep their output clean. */
const quiet = process.argv.includes('--quiet') || process.argv.includes('-q');
const clock = () => new Date().toTimeString().slice(0, 8);
/** dbt's log file, once the invocation is known: every console line goes there too, quiet or not. */
let log;
const sayError = (line = '', level = 'error') => {
  log?.write(level, line);
  process.stdout.write(`${clock()}  ${line}\n`);
};
const say = (line = '') => (quiet ? log?.write('info', line) : sayError(line, 'info'));

function parseArgs(argv) {
  const flags = { select: [] };
  const words = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('-')) { words.push(arg); continue; }
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (!VALUE_FLAGS.has(name)) continue;
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || value.startsWith('-')) throw new UsageError(`Option '${name}' requires an argument.`);
    const values = [value];
    while (MULTI_FLAGS.has(name) && eq < 0 && argv[i + 1] !== undefined && !argv[i + 1].startsWith('-')) values.push(argv[++i]);
    if (name === '-s' || name === '--select' || name === '-m' || name === '--models') flags.select.push(...values);
    else flags[name.replace(/^-+/, '')] = value;
  }
  return { command: commandOf(words), flags };
}

function commandOf(words) {
  const [first, second] = words;
  if (first === undefined) throw new UsageError('Missing command.');
  if (first === 'docs' || first === 'source') {
    const name = `${first} ${second ?? ''}`.trim();
    if (!(name in COMMANDS)) throw new UsageError(second ? `No such command '${second}'.` : 'Missing command.', first);
    return name;
  }
  if (!(first in COMMANDS)) throw new UsageError(`No such command '${first}'.`);
  return first;
}

function resolvePaths(flags, env) {
  const projectDir = path.resolve(flags['project-dir'] ?? env.DBT_PROJECT_DIR ?? '.');
  const projectFile = path.join(projectDir, 'dbt_project.yml');
  const fromProject = existsSync(projectFile) ? readFileSync(projectFile, 'utf8').match(/^target-path:\s*["']?([^"'#\r\n]+?)["']?\s*(#.*)?$/m)?.[1] : undefined;
  const targetPath = flags['target-path'] ?? env.DBT_TARGET_PATH ?? fromProject ?? 'target';
  const logPathOfProject = existsSync(projectFile) ? readFileSync(projectFile, 'utf8').match(/^log-path:\s*["']?([^"'#\r\n]+?)["']?\s*(#.*)?$/m)?.[1] : undefined;
  const logDir = path.resolve(projectDir, flags['log-path'] ?? env.DBT_LOG_PATH ?? logPathOfProject ?? 'logs');
  return { projectDir, projectFile, targetDir: path.resolve(projectDir, targetPath), logDir };
}

/** The replayed artifacts' bytes, read once before anything is written. */
function loadReplay(dir) {
  if (dir === undefined || dir === '') return { files: new Map(), dir: '(nothing)' };
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`FAKE_DBT_REPLAY=${dir} is not a directory`);
  const files = new Map();
  for (const name of ['manifest.json', 'semantic_manifest.json', 'run_results.json', 'sources.json', 'catalog.json']) {
    const file = path.join(dir, name);
    if (existsSync(file)) files.set(name, readFileSync(file));
  }
  return { files, dir };
}

function dbtVersionOf(files) {
  for (const bytes of files.values()) {
    const found = bytes.subarray(0, 65536).toString('utf8').match(/"dbt_version"\s*:\s*"([^"]+)"/);
    if (found) return found[1];
  }
  return 'fake';
}

/** One replayed result, normalised across versions (before 0.19 the status was an adapter message). */
function describeResult(result) {
  const id = result.unique_id ?? result.node?.unique_id ?? '(unknown node)';
  let status = typeof result.status === 'string' ? result.status.toLowerCase() : '';
  if (!['success', 'pass', 'warn', 'no-op', 'reused', ...FAILED].includes(status)) {
    status = result.error ? 'error' : result.fail ? 'fail' : result.skip ? 'skipped' : 'success';
  }
  const seconds = typeof result.execution_time === 'number' ? result.execution_time : 0;
  return { id, status, seconds, message: typeof result.message === 'string' ? result.message : null };
}

const LABEL = { success: 'OK', pass: 'PASS', warn: 'WARN', error: 'ERROR', fail: 'FAIL', 'runtime error': 'ERROR', skipped: 'SKIP', 'partial success': 'PARTIAL SUCCESS', 'no-op': 'NO-OP', reused: 'REUSED' };

/** dbt pads its progress lines with dots to a fixed width before the [STATUS] column. */
function statusLine(text, status) {
  return `${text} `.padEnd(80, '.') + ` [${status}]`;
}

function summarise(results) {
  const count = (pred) => results.filter(pred).length;
  return {
    pass: count((r) => ['success', 'pass', 'no-op', 'reused'].includes(r.status)),
    warn: count((r) => r.status === 'warn'),
    error: count((r) => ['error', 'fail', 'runtime error', 'partial success'].includes(r.status)),
    skip: count((r) => r.status === 'skipped'),
    total: results.length,
  };
}

function printDone(results) {
  const s = summarise(results);
  say(`Done. PASS=${s.pass} WARN=${s.warn} ERROR=${s.error} SKIP=${s.skip} TOTAL=${s.total}`);
}

function printEnd(results, startedMs) {
  const seconds = ((Date.now() - startedMs) / 1000).toFixed(2);
  const { error, warn } = summarise(results);
  const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
  say();
  say(`Finished running ${plural(results.length, 'node')} in 0 hours 0 minutes and ${seconds} seconds (${seconds}s).`);
  say();
  if (error > 0) say(`Completed with ${plural(error, 'error')} and ${plural(warn, 'warning')}:`);
  else if (warn > 0) say(`Completed with ${plural(warn, 'warning')}:`);
  else say('Completed successfully');
  say();
  printDone(results);
}

/** dbt's KeyboardInterrupt path: the results so far, from the replayed file cut short. */
function writePartialResults(state) {
  const replayed = JSON.parse(state.replay.files.get(state.resultsFile).toString('utf8'));
  replayed.results = replayed.results.slice(0, state.finished.length);
  replayed.elapsed_time = (Date.now() - state.startedMs) / 1000;
  writeFileSync(path.join(state.targetDir, state.resultsFile), JSON.stringify(replayed, null, 4));
}

async function handleInterrupt(state) {
  if (state.executing) {
    await sleep(Number(process.env.FAKE_DBT_CANCEL_MS ?? 0));
    if (state.resultsFile && state.replay.files.has(state.resultsFile)) writePartialResults(state);
    if (state.running) say(statusLine(`CANCEL query ${state.running}`, 'CANCEL'));
    say();
    say('Exited because of keyboard interrupt');
    say();
    printDone(state.finished);
  }
  sayError('Encountered an error:');
  process.stdout.write('\n');
  return 2;
}

function copyArtifact(state, name) {
  const bytes = state.replay.files.get(name);
  // dbt overwrites in place (open + truncate + write), never via a temp file and rename.
  if (bytes !== undefined) writeFileSync(path.join(state.targetDir, name), bytes);
}

async function executeResults(state, wait) {
  const bytes = state.replay.files.get(state.resultsFile);
  const results = bytes ? (JSON.parse(bytes.toString('utf8')).results ?? []).map(describeResult) : [];
  say(`Concurrency: 1 threads (target='${state.flags.target ?? 'dev'}')`);
  say();
  state.executing = true;
  for (const [i, result] of results.entries()) {
    state.running = result.id;
    say(statusLine(`${i + 1} of ${results.length} START ${result.id}`, 'RUN'));
    log?.write('debug', `Began running node ${result.id}`);
    writeNodeSql(state, result.id);
    if (process.env.FAKE_DBT_HANG === '1') await wait(2 ** 31 - 1);
    await wait(state.delayMs);
    state.finished.push(result);
    state.running = undefined;
    const label = LABEL[result.status] ?? 'OK';
    say(statusLine(`${i + 1} of ${results.length} ${label} ${result.id}`, `${label} in ${result.seconds.toFixed(2)}s`));
    if (result.message && FAILED.has(result.status) && result.status !== 'skipped') log?.write('error', `Failure in ${result.id}\n  ${result.message}`);
    log?.write('debug', `Finished running node ${result.id}`);
  }
  state.executing = false;
  if (results.length === 0 && process.env.FAKE_DBT_HANG === '1') await wait(2 ** 31 - 1);
  printEnd(results, state.startedMs);
  return results.some((r) => FAILED.has(r.status)) ? 1 : 0;
}

/** The manifest's nodes by unique_id, for their compiled_path and build_path. */
function replayedNodes(replay) {
  const bytes = replay.files.get('manifest.json');
  try {
    return bytes ? JSON.parse(bytes.toString('utf8')).nodes ?? {} : {};
  } catch {
    return {}; // a test replaying a broken manifest: no SQL to write
  }
}

/** dbt writes a node's compiled SQL when it compiles it and its run statement when it runs it. */
function writeNodeSql(state, id) {
  const node = state.nodes[id];
  for (const rel of [node?.compiled_path, node?.build_path]) {
    if (typeof rel !== 'string' || !rel.startsWith('target/')) continue;
    const from = path.join(state.replay.dir, rel.slice('target/'.length));
    if (!existsSync(from)) continue;
    const to = path.join(state.targetDir, rel.slice('target/'.length));
    mkdirSync(path.dirname(to), { recursive: true });
    writeFileSync(to, readFileSync(from));
  }
}

function invocationIdOf(files) {
  for (const bytes of files.values()) {
    const found = bytes.subarray(0, 65536).toString('utf8').match(/"invocation_id"\s*:\s*"([^"]+)"/);
    if (found) return found[1];
  }
  return crypto.randomUUID();
}

async function invoke(state, wait) {
  const { command, replay } = state;
  log = openLog({ dir: state.logDir, flags: state.flags, env: process.env, invocationId: invocationIdOf(replay.files) });
  say(`Running with dbt=${dbtVersionOf(replay.files)}`);
  if (COMMANDS[command].noManifest) {
    say('All checks passed!');
    return 0;
  }
  if (!existsSync(state.projectFile)) {
    sayError('Encountered an error:');
    process.stdout.write(`Runtime Error\n  No dbt_project.yml found at expected path ${state.projectFile}\n`);
    return 2;
  }
  await wait(0);
  say(`Found the artifacts of ${replay.dir} (fake dbt: replaying, not running)`);
  mkdirSync(state.targetDir, { recursive: true });
  state.nodes = replayedNodes(replay);
  copyArtifact(state, 'manifest.json');
  copyArtifact(state, 'semantic_manifest.json');
  if (!state.resultsFile) {
    if (process.env.FAKE_DBT_HANG === '1') await wait(2 ** 31 - 1);
    if (command === 'ls' || command === 'list') listNodes(replay.files.get('manifest.json'));
    return 0;
  }
  const code = await executeResults(state, wait);
  copyArtifact(state, 'manifest.json');
  copyArtifact(state, state.resultsFile);
  if (COMMANDS[command].after) copyArtifact(state, COMMANDS[command].after);
  return code;
}

function listNodes(bytes) {
  if (!bytes) return;
  const manifest = JSON.parse(bytes.toString('utf8'));
  for (const node of Object.values(manifest.nodes ?? {})) {
    if (Array.isArray(node.fqn)) process.stdout.write(`${node.fqn.join('.')}\n`);
  }
}

function usageFailure(error) {
  const group = error.group ? ` ${error.group}` : '';
  process.stderr.write(`Usage: dbt${group} [OPTIONS] COMMAND [ARGS]...\nTry 'dbt${group} -h' for help.\n\nError: ${error.message}\n`);
  return 2;
}

async function main() {
  let parsed;
  try {
    parsed = parseArgs(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) return usageFailure(error);
    throw error;
  }
  if (process.env.FAKE_DBT_ARGS_OUT) writeFileSync(process.env.FAKE_DBT_ARGS_OUT, JSON.stringify({ select: parsed.flags.select, argv: process.argv.slice(2) }));
  let replay;
  try {
    replay = loadReplay(process.env.FAKE_DBT_REPLAY);
  } catch (error) {
    process.stderr.write(`fake dbt: ${error.message}\n`);
    return 3;
  }
  const interrupt = new AbortController();
  process.on('SIGINT', () => {
    if (!interrupt.signal.aborted) return interrupt.abort();
    process.removeAllListeners('SIGINT');
    process.kill(process.pid, 'SIGINT');
  });
  const wait = (ms) => sleep(ms, undefined, { signal: interrupt.signal });
  const state = {
    ...parsed, ...resolvePaths(parsed.flags, process.env), replay,
    nodes: {}, resultsFile: COMMANDS[parsed.command].results, delayMs: Number(process.env.FAKE_DBT_DELAY_MS ?? 50),
    startedMs: Date.now(), finished: [], executing: false, running: undefined,
  };
  let code;
  try {
    code = await invoke(state, wait);
  } catch (error) {
    if (!interrupt.signal.aborted) throw error;
    return await handleInterrupt(state);
  }
  // The override stands in for the outcome of a completed run, not for dbt refusing to start.
  return process.env.FAKE_DBT_EXIT !== undefined && code !== 2 ? Number(process.env.FAKE_DBT_EXIT) : code;
}

process.exitCode = await main();
