// Every CLI command that has --json, run on the fixture history, one file per command: a
// refactoring that must not change behaviour (issue 45) is checked by running this before and
// after and diffing the two directories, which must be byte for byte the same.
//
//   npm run build
//   node scripts/json-outputs.mjs /tmp/json-before /tmp/json-history   # at the branch point
//   … change the code, npm run build …
//   node scripts/json-outputs.mjs /tmp/json-after /tmp/json-history
//   diff -r /tmp/json-before /tmp/json-after
//
// HISTORY_DIR (optional) holds the fixture history replayed through `dbtattic run` with the
// stand-in dbt (fixtures/replay.mjs, as test/helpers/replay.ts does): built there when absent,
// and reused when present, so both runs read the same archive (capture ids and capture times are
// of the moment the history was replayed). Commands run on a fresh copy of it each time; the
// ones that write (state, sync, rebuild, compact, branch create/delete, push) come last.
// Masked in what is written: the copy's path (<WORK>), times at or after this script started
// (<NOW>), ids made now (<NEW-ID>), the archive files' stat stamps (<STAT>) and the HTML
// report's size; its page and data are compared apart (writeReportPage).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, utimesSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DBTATTIC_BIN, openReplay, prepareReplay } from '../fixtures/replay.mjs';

const [outDir, historyArg] = process.argv.slice(2);
if (!outDir) {
  process.stderr.write('usage: node scripts/json-outputs.mjs OUT_DIR [HISTORY_DIR]\n');
  process.exit(2);
}
const started = Date.now();
const env = cleanEnv();

const historyDir = historyArg ? path.resolve(historyArg) : mkdtempSync(path.join(os.tmpdir(), 'json-history-'));
if (!existsSync(path.join(historyDir, 'history', 'steps.json'))) buildHistory(historyDir);
const work = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'json-outputs-')));
cpSync(historyDir, work, { recursive: true });
ageFiles(work);
const replay = openReplay(work, { env });
// Reading commands catch the store up in the background; after a copy it has to (the files it
// stamps are new), so one sync first keeps what the first command reads from depending on timing.
attic(['sync']);
const id = (step) => replay.steps.find((s) => s.step === step).invocation_id;

rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });

const reads = [
  ['info', ['info', '--json']],
  ['history', ['history', '--json']],
  ['history-failed', ['history', '--failed', '--json']],
  ['history-node', ['history', '--node', 'customers', '--json']],
  ['history-node-test', ['history', '--node', 'not_null_orders_status_group', '--json']],
  ['history-status-failed', ['history', '--status', 'failed', '--json']],
  ['history-command-build-limit', ['history', '--command', 'build', '--limit', '2', '--json']],
  ['history-branch', ['history', '--branch', 'main', '--json']],
  ['history-since-until', ['history', '--since', '2000-01-01', '--until', '2100-01-01', '--json']],
  ['state-last-success', ['state', '--last-success', '--json']],
  ['state-per-node', ['state', '--per-node', '--json']],
  ['state-invocation', ['state', '--invocation', id(5).slice(0, 8), '--json']],
  ['state-command-seed', ['state', '--command', 'seed', '--json']],
  ['plan', ['plan', '--no-record', '--json']],
  ['plan-select', ['plan', '--no-record', '--select', 'stg_customers+', '--json']],
  ['plan-invocation', ['plan', '--no-record', '--invocation', id(10), '--json']],
  ['plan-explain', ['plan', '--no-record', '--format', 'json', '--explain', 'customers']],
  ['explain', ['explain', 'customers', '--json']],
  ['explain-invocation', ['explain', 'order_totals', '--invocation', id(10), '--json']],
  ['inspect-at', ['inspect', '--at', '2100-01-01', '--json']],
  ['inspect-05', ['inspect', id(5), '--json']],
  ['inspect-07-nearest', ['inspect', id(7), '--nearest', '--json']],
  ['inspect-branch', ['inspect', '@main', '--json']],
  ['diff-01-12', ['diff', id(1), id(12), '--json']],
  ['diff-04-05', ['diff', id(4), id(5), '--json']],
  ['diff-06-08-nearest', ['diff', id(6), id(8), '--nearest', '--json']],
  ['diff-09-10', ['diff', id(9), id(10), '--json']],
  ['show', ['show', 'customers', '--json']],
  ['show-invocation', ['show', 'order_totals', '--invocation', id(10), '--json']],
  ['show-compiled', ['show', 'model.attic_shop.orders', '--compiled', '--json']],
  ['show-log', ['show', 'customers', '--log', '--json']],
  ['branch-list', ['branch', 'list', '--json']],
  ['verify', ['verify', '--json']],
  ['report-markdown', ['report', '--format', 'markdown', '--json']],
  ['report-markdown-from-to', ['report', '--format', 'markdown', '--from', id(4), '--to', id(5), '--json']],
  ['report-markdown-stdout', ['report', '--format', 'markdown', '--from', id(9), '--to', id(10)]],
  ['report-html', ['report', '--out', path.join(work, 'report.html'), '--json']],
  ['forget-dry-run', ['forget', '--keep-last', '3', '--dry-run', '--json']],
  ['forget-dry-run-daily', ['forget', '--keep-daily', '1', '--keep-within', '2h', '--dry-run', '--json']],
  ['prune-dry-run', ['prune', '--dry-run', '--json']],
  ['capture-dry-run', ['capture', '--dry-run', '--json']],
  ['error-json', ['inspect', 'nonexistent', '--json']],
];
for (const [name, args] of reads) write(name, args);
writeReportPage(path.join(work, 'report.html'));

// The whole store, table by table and view by view, in a stable order.
const objects = JSON.parse(
  attic(['query', '--json', "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY table_name"]).stdout,
);
write('query-tables', ['query', '--json', "SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'main' ORDER BY table_name"]);
for (const { table_name: table } of objects) write(`query-${table}`, ['query', '--json', `SELECT * FROM "${table}" ORDER BY ALL`]);
write('query-csv', ['query', '--format', 'csv', 'SELECT invocation_id, command FROM invocation ORDER BY ALL']);

// Commands that write, last: each sees what the ones before it wrote, on every run alike.
const writes = [
  ['sync', ['sync', '--json']],
  ['rebuild', ['rebuild', '--json']],
  ['compact', ['compact', '--force', '--json']],
  ['branch-create', ['branch', 'create', 'feature', '--from', id(4), '--json']],
  ['state-branch', ['state', '--branch', 'feature', '--json']],
  ['history-branch-feature', ['history', '--branch', 'feature', '--json']],
  ['branch-delete', ['branch', 'delete', 'feature', '--json']],
  ['push', ['push', path.join(work, 'remote'), '--json']],
  ['pull', ['pull', path.join(work, 'remote'), '--json']],
  ['forget', ['forget', '--keep-last', '6', '--json']],
  ['prune', ['prune', '--grace', '0', '--json']],
  ['history-after-forget', ['history', '--json']],
  ['verify-after-prune', ['verify', '--json']],
];
for (const [name, args] of writes) write(name, args);

rmSync(work, { recursive: true, force: true });
process.stderr.write(`${readdirSync(outDir).length} files in ${outDir}\n`);

/**
 * Every file and folder of the copy dated alike, long ago: the store trusts a folder's time
 * only once it is old enough to tell two changes apart (archive/backends/fs.ts, folderStamp),
 * and prune's grace reads objects' times, so a copy dated now would answer by how fast it ran.
 */
function ageFiles(dir) {
  const then = new Date('2024-06-04T00:00:00Z');
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) ageFiles(full);
    if (!entry.isSymbolicLink()) utimesSync(full, then, then);
  }
  utimesSync(dir, then, then);
}

/**
 * The HTML report's page and its data, apart: the data is gzipped with the time it was made in
 * it (meta.generated_at), so the page's bytes (and report --json's count of them) differ on
 * every run; unpacked and masked, they are compared like the rest.
 */
function writeReportPage(file) {
  const html = readFileSync(file, 'utf8');
  const data = /(<script id="report-data"[^>]*>)([^<]*)(<)/.exec(html);
  writeFileSync(path.join(outDir, 'report-html-page.txt'), mask(html.replace(data?.[2] ?? '', '<DATA>')));
  writeFileSync(
    path.join(outDir, 'report-html-data.txt'),
    data ? `${mask(gunzipSync(Buffer.from(data[2], 'base64')).toString('utf8'))}\n` : 'no report-data\n',
  );
}

function buildHistory(dir) {
  mkdirSync(dir, { recursive: true });
  const fresh = prepareReplay(dir, { env });
  for (const step of fresh.steps) fresh.replayStep(step);
}

function write(name, args) {
  const result = attic(args);
  const text = `$ dbtattic ${args.map((a) => mask(a)).join(' ')}\nexit ${result.exitCode}\n--- stdout\n${mask(result.stdout)}\n--- stderr\n${mask(result.stderr)}\n`;
  writeFileSync(path.join(outDir, `${name}.txt`), text);
}

/** As replay.attic, with room for the larger tables (spawnSync cuts stdout at 1 MiB by default). */
function attic(args) {
  const result = spawnSync(process.execPath, [DBTATTIC_BIN, ...args], {
    cwd: replay.project,
    env: { ...env, PATH: `${path.join(work, 'bin')}${path.delimiter}${env.PATH ?? ''}` },
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  return { exitCode: result.status ?? 1, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
}

function mask(text) {
  return (
    text
      .replaceAll(work, '<WORK>')
      .replaceAll(os.tmpdir(), '<TMP>')
      .replace(/\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?/g, (t) => (Date.parse(t.replace(' ', 'T')) >= started - 1000 ? '<NOW>' : t))
      // Time-ordered ids (vocab) made now: their first 13 hex digits are milliseconds since 1970.
      .replace(/\b([0-9a-f]{13})-[0-9a-f]{12}\b/g, (whole, ms) => (Number.parseInt(ms, 16) >= started - 1000 ? '<NEW-ID>' : whole))
      // The archive's files as the store stamped them (inode:mtime), new in every copy.
      .replace(/\b\d+:\d{19}\b/g, '<STAT>')
      // The HTML report's size (writeReportPage compares what is in it).
      .replace(/("bytes": )\d+(,\n\s*"runs": )/g, '$1<N>$2')
  );
}

/** As test/helpers/replay.ts: a CI variable or DBTATTIC_BRANCH in the shell would change the branch runs are filed on. */
function cleanEnv() {
  const clean = { NO_COLOR: '1' };
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[key] !== undefined) clean[key] = process.env[key];
  return clean;
}
