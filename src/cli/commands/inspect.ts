import type { Command } from '@commander-js/extra-typings';
import { defineCommand, type FlagsOf } from '../command-module.js';
import { inspectOf } from '../../app/index.js';
import type { InspectReport } from '../../store/index.js';
import { shortId } from '../../vocab/index.js';
import { loadConfig } from '../context.js';
import { formatDuration, formatTime } from '../format.js';
import { printJson, type CliIo } from '../io.js';
import { printChanges } from '../print-changes.js';
import { withProgress } from '../progress.js';
import { sayNotice } from '../read-notice.js';
import { wrappingIo } from '../wrap-lines.js';

const options = (command: Command) =>
  command
    .argument('[invocation]', 'an id, a unique prefix, or @branch for its latest')
    .option('--at <time>', 'the latest invocation at or before this time (ISO 8601, or back from now: 12h, 7d, yesterday…)')
    .option('--nearest', 'when it has no manifest, compare nodes through the nearest earlier run that has one')
    .option('--json', 'print as JSON');

type InspectFlags = FlagsOf<typeof options>;

export default defineCommand(options, inspect);

/** Which code, which data and which run produced an invocation, and what changed since the one before. */
async function inspect(terminal: CliIo, flags: InspectFlags): Promise<number> {
  const io = wrappingIo(terminal);
  const ref = flags.args?.[0];
  const config = loadConfig(io, flags);
  const { value, notice } = await withProgress(io, 'catching up', (update) =>
    inspectOf(config, { ref, at: flags.at, nearest: flags.nearest === true }, update),
  );
  const { report, abbreviate } = value;
  if (flags.json) printJson(io, report);
  else {
    printInspect(io, report, abbreviate);
    for (const plan of report.plans)
      io.stdout(
        `${'plan'.padEnd(12)}plan ${plan.plan_id}  made ${formatTime(plan.made_at)}  ${plan.reuse} reuse, ${plan.build} build${plan.target ? `  target ${plan.target}` : ''}${plan.branch ? `  branch ${plan.branch}` : ''}${plan.defer_to ? `  defer to ${plan.defer_to}` : ''}\n`,
      );
  }
  return sayNotice(io, config, notice);
}

function printInspect(io: CliIo, report: InspectReport, abbreviate: (id: string) => string): void {
  const i = report.invocation;
  const { code, data } = report.triplet;
  const line = (key: string, value: string): void => io.stdout(`${key.padEnd(12)}${value}\n`);
  line('invocation', `${i.invocation_id}${i.run_id ? io.color.dim(`  (run ${i.run_id})`) : ''}`);
  line(
    'command',
    [
      i.run_command_line ?? (i.command ? `dbt ${i.command}` : '-'),
      hasSelection(i.selection) ? `select ${JSON.stringify(i.selection)}` : '',
      i.target
        ? `target ${i.target}${i.target_source && i.target_source !== 'run_results args' ? io.color.dim(` (from ${String(i.target_source)})`) : ''}`
        : '',
      i.branch ? `branch ${i.branch}` : '',
    ]
      .filter(Boolean)
      .join('   '),
  );
  line('dbt', `${i.dbt_version ?? '?'}${i.adapter_type ? ` (${i.adapter_type})` : ''}${i.project_name ? `, project ${i.project_name}` : ''}`);
  line(
    'started',
    `${formatTime(String(i.started_at ?? i.generated_at ?? ''))}, finished ${formatTime(String(i.completed_at ?? ''))} (${formatDuration(typeof i.elapsed_s === 'number' ? i.elapsed_s : null)})`,
  );
  line(
    'results',
    i.status_counts
      ? Object.entries(i.status_counts as Record<string, number>)
          .map(([s, n]) => `${n} ${s}`)
          .join(', ')
      : 'none',
  );
  if (i.run_exit_code !== null && i.run_exit_code !== undefined) line('exit code', String(i.run_exit_code));
  printFailures(io, report.failures);
  line('code', code.git_sha ? `git ${shortId(String(code.git_sha), 12)} on ${code.git_branch ?? '?'}${treeState(code)}` : 'no git');
  line('', `code fingerprint ${code.code_fingerprint ? shortId(String(code.code_fingerprint), 16) : 'unknown'}${contextNote(io, code)}`);
  line(
    'data',
    data.catalog_provider
      ? `${data.catalog_provider} ${data.catalog_status === 'ok' ? `snapshot ${data.catalog_snapshot_id}${data.catalog_atomic === false ? ' (per table, not atomic)' : ''}` : `unknown${data.catalog_detail ? ` ${JSON.stringify(data.catalog_detail)}` : ''}`}`
      : 'no catalog configured',
  );
  if (!report.changes) {
    line('since', 'no earlier run on this branch and target to compare with');
    return;
  }
  line('since', `${abbreviate(report.changes.from)} (the previous run on this branch and target)`);
  printChanges(io, report.changes, abbreviate);
}

function treeState(code: InspectReport['triplet']['code']): string {
  if (code.git_dirty === null || code.git_dirty === undefined) return ' (working tree then unknown)';
  return code.git_dirty ? ` (dirty, diff ${shortId(String(code.git_diff_hash ?? '?'), 12)})` : ' (clean)';
}

function contextNote(io: CliIo, code: InspectReport['triplet']['code']): string {
  if (code.git_source === 'reflog') return io.color.dim("  (HEAD from git's reflog as of when dbt ran: it moved before the capture)");
  return code.context_taken === 'capture' ? io.color.dim('  (git read at capture time, not when dbt ran)') : '';
}

/** The run's own failures lead: what broke is the first question about a failed run. */
function printFailures(io: CliIo, failures: InspectReport['failures']): void {
  if (failures.length === 0) return;
  io.stdout(`${'failures'.padEnd(12)}${failures.length}\n`);
  for (const f of failures) {
    const message = typeof f.message === 'string' && f.message !== '' ? `: ${f.message.split('\n')[0]}` : '';
    io.stdout(`  ${io.color.red(String(f.status))} ${f.unique_id}${message}\n`);
  }
}

function hasSelection(selection: unknown): boolean {
  return Array.isArray(selection) ? selection.length > 0 : selection !== null && selection !== undefined && selection !== '';
}
