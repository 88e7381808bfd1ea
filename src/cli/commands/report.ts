import { Option, type Command } from '@commander-js/extra-typings';
import { defineCommand, type FlagsOf } from '../command-module.js';
import { positiveInt } from '../option-values.js';
import { lstatSync, statSync } from 'node:fs';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { AtticError, ExitCode } from '../../errors.js';
import { readMarkdownSummary, writeHtmlReport } from '../../report/index.js';
import { withCurrentStore } from '../../store/index.js';
import { parseTimeArgument, spanStartIso } from '../../vocab/index.js';
import { loadConfig } from '../context.js';
import { printJson, type CliIo } from '../io.js';
import { refuseMistypedBranch } from '../../app/named-branch.js';
import { withProgress } from '../progress.js';
import { TOOL_VERSION } from '../version.js';

const options = (command: Command) =>
  command
    .option('--out <file>', 'where to write the HTML report', 'report.html')
    .addOption(
      new Option('--format <format>', 'html, or markdown: a summary from --from to --to on stdout')
        .choices(['html', 'markdown'] as const)
        .default('html' as const),
    )
    .option('--since <time>', 'only invocations at or after this time (ISO 8601, or back from now: 12h, 7d, 2w, today, yesterday)')
    .option('--last <n>', 'only the newest N invocations', positiveInt)
    .option('--target <name>', 'only this dbt target')
    .option('--branch <name>', 'only this line of history')
    .option('--from <id>', 'markdown: the earlier run (default: the run before --to on its branch and target)')
    .option('--to <id>', 'markdown: the later run (default: the newest)')
    .option('--report-url <url>', "markdown: where the HTML report is (a CI artifact), linked when lists are cut to fit GitHub's 65,536-character comment")
    .option('--open', 'open the report in a browser once written')
    .option('--json', 'print what was written as JSON');

type ReportFlags = FlagsOf<typeof options>;

export default defineCommand(options, report);

/** 10 MB: what a mail attachment or CI artifact viewer takes without complaint. */
const SIZE_BUDGET = 10_000_000;

async function report(io: CliIo, flags: ReportFlags): Promise<number> {
  const config = loadConfig(io, flags);
  if (flags.format === 'markdown') {
    const text = await withProgress(io, 'catching up', (update) =>
      withCurrentStore(config, (db) => readMarkdownSummary(db, config, { from: flags.from, to: flags.to, reportUrl: flags.reportUrl }), update),
    );
    if (flags.json) printJson(io, { markdown: text });
    else io.stdout(text);
    return ExitCode.ok;
  }
  if (flags.from !== undefined || flags.to !== undefined || flags.reportUrl !== undefined)
    throw new AtticError('usage', '--from, --to and --report-url are for --format markdown; an HTML report covers a period: use --since or --last.');
  await refuseMistypedBranch(config, flags.branch);
  const scope = {
    target: flags.target,
    branch: flags.branch,
    since: flags.since === undefined ? undefined : spanStartIso(parseTimeArgument(flags.since)),
    last: flags.last,
  };
  const out = checkedOut(io, flags.out ?? 'report.html');
  const written = await withProgress(io, 'catching up', (update) =>
    withCurrentStore(
      config,
      (db) => writeHtmlReport(db, { out, scope, scopeText: scopeText(flags), toolVersion: TOOL_VERSION, now: new Date(), limitBytes: SIZE_BUDGET }),
      update,
    ),
  );
  if (flags.json) printJson(io, written);
  else io.stdout(`${written.path}\n`);
  io.stderr(`report: ${written.runs} runs, ${written.nodes} nodes, ${(written.bytes / 1e6).toFixed(2)} MB${written.note ? `\n${written.note}` : ''}\n`);
  if (flags.open) openInBrowser(io, written.path);
  return ExitCode.ok;
}

function scopeText(flags: ReportFlags): string {
  const parts = [
    flags.last !== undefined ? `the last ${flags.last} runs` : 'every run',
    flags.since ? `since ${flags.since}` : '',
    flags.target ? `on target ${flags.target}` : '',
    flags.branch ? `on branch ${flags.branch}` : '',
  ];
  return parts.filter(Boolean).join(' ');
}

/** The desktop's opener, detached; a missing one is a warning, never a failure: the file is written. */
function openInBrowser(io: CliIo, file: string): void {
  const [command, args] =
    process.platform === 'darwin' ? ['open', [file]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', file]] : ['xdg-open', [file]];
  const child = spawn(command, args as string[], { detached: true, stdio: 'ignore' });
  child.on('error', () => io.stderr(`warning: could not open ${file} (${command} failed); open it in a browser yourself\n`));
  child.unref();
}

/**
 * The file to write: a new one, or a regular file to replace. The report is written beside it and
 * renamed over it, so a device, a FIFO or a symlink there would be replaced, not written through.
 */
function checkedOut(io: CliIo, given: string): string {
  const out = path.resolve(io.cwd, given);
  const parent = statSync(path.dirname(out), { throwIfNoEntry: false });
  if (parent && !parent.isDirectory()) throw new AtticError('usage', `--out ${given}: ${path.dirname(out)} is a file, not a directory.`);
  const found = lstatSync(out, { throwIfNoEntry: false });
  if (found?.isDirectory())
    throw new AtticError('usage', `--out ${given} is a directory; name the file to write, e.g. --out ${path.join(given, 'report.html')}.`);
  if (found && !found.isFile())
    throw new AtticError('usage', `--out ${given} is not a regular file (a device, a FIFO or a symlink); name a new file or a regular one to replace.`);
  return out;
}
