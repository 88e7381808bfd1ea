import type { Command } from '@commander-js/extra-typings';
import { defineCommand, type FlagsOf } from '../command-module.js';
import { openArchive } from '../../archive/index.js';
import { ExitCode } from '../../errors.js';
import { describePolicy, evaluatePolicy, forgetByPolicy, predictShrink, resolvePolicy, type Decision } from '../../retention/index.js';
import { refuseUnknownBranch } from '../../state/index.js';
import { countOf, uniquePrefixes } from '../../vocab/index.js';
import { loadConfig } from '../context.js';
import { formatBytes, formatTime } from '../format.js';
import { printJson, type CliIo } from '../io.js';
import { id, printTable, text, time } from '../print-table.js';

const options = (command: Command) =>
  command
    .option('--keep-last <n>', 'the n newest')
    .option('--keep-hourly <n>', 'the newest of each of the n newest hours with a run')
    .option('--keep-daily <n>', 'the newest of each of the n newest days with a run')
    .option('--keep-weekly <n>', 'the newest of each of the n newest ISO weeks with a run')
    .option('--keep-monthly <n>', 'the newest of each of the n newest months with a run')
    .option('--keep-yearly <n>', 'the newest of each of the n newest years with a run')
    .option('--keep-within <duration>', 'every run less than this (12h, 30d, 2w, 6m, 1y) before the newest')
    .option('--branch <name>', 'decide only the lines of this branch')
    .option('--dry-run', 'remove nothing: list what would go and why each kept one stays')
    .option('--json', 'print as JSON');

type ForgetFlags = FlagsOf<typeof options>;

export default defineCommand(options, forget);

/** Decides per branch and target which invocations to keep, and removes the others' records. */
async function forget(io: CliIo, flags: ForgetFlags): Promise<number> {
  const config = loadConfig(io, flags);
  const { policy, source } = resolvePolicy(flags, config.retention?.value);
  const backend = await openArchive(config.archiveLocation, { create: false, remote: config.remote });
  const now = new Date();
  // A typo would decide for no line of history at all, and say nothing.
  if (flags.branch) await refuseUnknownBranch(backend, flags.branch);
  const onWait = (what: string): void => io.stderr(`forget: ${what}\n`);
  const { plan, outcome } = flags.dryRun
    ? { plan: await evaluatePolicy(backend, policy, { now, branch: flags.branch }), outcome: null }
    : await forgetByPolicy(backend, policy, { now, branch: flags.branch, describe: describePolicy(policy), onWait });
  const shrink = flags.dryRun ? await predictShrink(backend, plan.forget) : null;
  if (flags.json) {
    printJson(io, {
      dry_run: Boolean(flags.dryRun),
      policy: { ...policy, source },
      forget_id: outcome?.forgetId ?? null,
      keep: plan.decisions.filter((d) => d.keep).map(decisionView),
      forget: plan.decisions.filter((d) => !d.keep).map(decisionView),
      records_removed: outcome?.records ?? null,
      would_free: shrink,
    });
    return ExitCode.ok;
  }
  const short = uniquePrefixes(plan.decisions.map((d) => d.id));
  printTable(
    io,
    [text('action', { min: 'would forget'.length }), id('invocation'), time('finished'), id('branch'), text('target'), text('why kept')],
    plan.decisions.map((d) => [
      d.keep ? 'keep' : flags.dryRun ? 'would forget' : 'forget',
      short(d.id),
      formatTime(d.ranAt),
      d.branch ?? '-',
      d.target ?? '-',
      d.reasons.join(', ') || '-',
    ]),
  );
  const verb = flags.dryRun ? 'would forget' : 'forgot';
  io.stderr(`${verb} ${countOf(plan.forget.length, 'invocation')}, kept ${plan.keep.length} (policy: ${describePolicy(policy)}, from ${source})\n`);
  if (shrink)
    io.stderr(
      `forget then prune would free ${formatBytes(shrink.bytes)} (${countOf(shrink.records, 'record')}, ${countOf(shrink.files, 'file')}, ${countOf(shrink.chunks, 'chunk')})\n`,
    );
  else if (plan.forget.length > 0) io.stderr("their objects stay until 'dbtattic prune'\n");
  return ExitCode.ok;
}

function decisionView(d: Decision): Record<string, unknown> {
  return { invocation_id: d.id, ran_at: d.ranAt, branch: d.branch, target: d.target, reasons: d.reasons };
}
