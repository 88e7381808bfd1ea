import { AtticError } from '../../errors.js';
import { historyOf } from '../../app/index.js';
import { branchBaseReader, type History, type HistoryFilter, type HistoryRow } from '../../store/index.js';
import { countOf, parseTimeArgument, shortId, spanLastIso, spanStartIso } from '../../vocab/index.js';
import { Option, type Command } from '@commander-js/extra-typings';
import { defineCommand, type FlagsOf } from '../command-module.js';
import { loadConfig } from '../context.js';
import { positiveInt } from '../option-values.js';
import { formatDuration, formatTime } from '../format.js';
import { printJson, type CliIo } from '../io.js';
import { id, printTable, text, time, type Cell } from '../print-table.js';
import { withProgress } from '../progress.js';
import { sayNotice } from '../read-notice.js';

const options = (command: Command) =>
  command
    .option('--limit <n>', 'how many', positiveInt, 20)
    .option('--target <name>', 'only this dbt target')
    .option('--command <name>', 'only this dbt command (build, run, test, ...)')
    .addOption(
      new Option('--status <outcome>', 'ok: results, none failed; failed: some error or fail; none: no results').choices(['ok', 'failed', 'none'] as const),
    )
    .option('--branch <name>', 'only this line of history')
    .option('--since <time>', 'only invocations at or after this time (ISO 8601, a date alone from its start; or back from now: 12h, 7d, 2w, today, yesterday)')
    .option('--until <time>', 'only invocations at or before this time (ISO 8601, a date alone to its end; or 12h, 7d, yesterday…)')
    .option('--node <name>', "one model's or test's runs: its name or unique id")
    .option('--failed', "only failed invocations, one line per failed node with dbt's message")
    .option('--json', 'print as JSON');

type HistoryFlags = FlagsOf<typeof options>;

export default defineCommand(options, history);

async function history(io: CliIo, flags: HistoryFlags): Promise<number> {
  if (flags.failed && flags.status !== undefined && flags.status !== 'failed') {
    throw new AtticError('usage', `--failed lists the failures of failed runs; --status ${flags.status} asks for others. Drop one of them.`);
  }
  const filter = filterOf(flags);
  const config = loadConfig(io, flags);
  const { value: found, notice } = await withProgress(io, 'catching up', (update) => historyOf(config, filter, flags.failed ?? false, update));
  if (flags.json) printJson(io, found.rows);
  else if (found.rows.length > 0) printRows(io, found.rows, flags, found.abbreviate);
  const base = found.branchRuns === 0 ? await branchBaseReader(config)(flags.branch!) : null;
  if (base) sayBranchStartsAt(io, flags.branch!, found.abbreviate(base));
  else sayWhatWasLeftOut(io, found);
  return sayNotice(io, config, notice);
}

function filterOf(flags: HistoryFlags): HistoryFilter {
  return {
    limit: flags.limit ?? 20,
    target: flags.target,
    command: flags.command,
    // A run's failed nodes are listed for runs that failed.
    status: flags.failed ? 'failed' : parseStatus(flags.status),
    branch: flags.branch,
    since: flags.since === undefined ? undefined : spanStartIso(parseTimeArgument(flags.since)),
    until: flags.until === undefined ? undefined : spanLastIso(parseTimeArgument(flags.until)),
    node: flags.node,
  };
}

function printRows(io: CliIo, rows: HistoryRow[], flags: HistoryFlags, abbreviate: (id: string) => string): void {
  if (flags.failed) {
    printTable(
      io,
      [time(STARTED), id('invocation'), text('command', { drop: 1 }), id('node'), text('status'), text('message', { min: 30 })],
      rows.flatMap((row) =>
        (row.failures ?? []).map((f) => [
          formatTime(row.at),
          abbreviate(row.invocation_id),
          row.command ?? '-',
          f.unique_id,
          io.color.red(f.status ?? '-'),
          f.message ?? '-',
        ]),
      ),
    );
  } else if (flags.node) {
    // The node is the one asked for, the same in (nearly) every row: the first to go on a narrow terminal.
    printTable(
      io,
      [
        time(STARTED),
        id('invocation'),
        text('command'),
        text('target', { drop: 4 }),
        id('node', { drop: 1 }),
        text('status'),
        text('took', { drop: 3 }),
        id('branch', { drop: 2 }),
      ],
      rows.flatMap((row) =>
        (row.node_results ?? []).map((r) => [
          formatTime(row.at),
          abbreviate(row.invocation_id),
          row.command ?? '-',
          row.target ?? '-',
          r.unique_id,
          colourStatus(io, r.status ?? '-'),
          formatDuration(r.execution_time),
          branchOf(row),
        ]),
      ),
    );
  } else {
    printTable(
      io,
      [
        time(STARTED),
        id('invocation'),
        text('command'),
        text('target'),
        text('results'),
        text('took', { drop: 4 }),
        text('exit', { drop: 1 }),
        id('git', { drop: 2 }),
        id('branch', { drop: 3 }),
      ],
      rows.map((row) => humanRow(io, row, abbreviate)),
    );
  }
}

/**
 * A branch made by `branch create` and not yet run on: its line of history is its base, which
 * `state --branch` answers with, so "nothing matched" would contradict it.
 */
function sayBranchStartsAt(io: CliIo, branch: string, base: string): void {
  io.stderr(
    `Branch ${branch} has no runs of its own yet: it starts at invocation ${base} (branch create), which state --branch ${branch} answers with until it has. See it with: dbtattic inspect ${base}\n`,
  );
}

/** A run's time is when it started, as dbt's invocation_started_at and the report give it. */
const STARTED = 'started';

/** Talk on stderr: why nothing is listed, or that the limit cut the list. */
function sayWhatWasLeftOut(io: CliIo, found: History): void {
  if (found.stored === 0) {
    io.stderr('No invocations yet. Capture some with dbtattic capture or dbtattic run -- dbt build.\n');
  } else if (found.matched === 0) {
    io.stderr(`No invocations match these filters; the store holds ${countOf(found.stored, 'invocation')}. Widen or drop a filter.\n`);
  } else if (found.matched > found.rows.length) {
    io.stderr(`(showing the newest ${found.rows.length} of ${countOf(found.matched, 'matching invocation')}; raise --limit for more)\n`);
  }
}

function humanRow(io: CliIo, row: HistoryRow, abbreviate: (id: string) => string): Cell[] {
  const counts = Object.entries(row.status_counts ?? {}).map(([status, n]) => colourStatus(io, status, `${n} ${status}`));
  return [
    formatTime(row.at),
    abbreviate(row.invocation_id),
    row.command ?? '-',
    row.target ?? '-',
    counts.length > 0 ? counts : '-',
    formatDuration(row.elapsed_s),
    row.run_exit_code === null ? '-' : String(row.run_exit_code),
    row.git_sha ? shortId(row.git_sha, 7) : '-',
    branchOf(row),
  ];
}

function branchOf(row: HistoryRow): string {
  return row.branch ?? row.git_branch ?? '-';
}

function colourStatus(io: CliIo, status: string, text = status): string {
  if (['error', 'fail', 'runtime error', 'partial success'].includes(status)) return io.color.red(text);
  if (status === 'warn' || status === 'skipped') return io.color.yellow(text);
  return io.color.green(text);
}

function parseStatus(value: string | undefined): 'ok' | 'failed' | 'none' | undefined {
  return value === 'ok' || value === 'failed' || value === 'none' ? value : undefined;
}
