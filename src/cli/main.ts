import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { AtticError, ExitCode, asDiskError, isAtticError } from '../errors.js';
import { CAPTURE_PHASES } from '../vocab/index.js';
import { printJson, processIo, type CliIo } from './io.js';
import { forgetWrittenBlobs } from '../archive/written-blobs.js';
import { startPaging } from './pager.js';
import { wrappingTalk } from './wrap-lines.js';
import { TOOL_VERSION } from './version.js';

/**
 * The one place errors become output and exit codes. Each command lives in commands/ and is
 * imported only when called, so `capture` never loads DuckDB.
 */
export function buildProgram(io: CliIo, setExit: (code: number) => void): Command {
  const program = new Command('dbtattic')
    .description('Preserve and query the history of dbt artifacts.')
    .version(TOOL_VERSION)
    .enablePositionalOptions()
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });

  type Handler = (io: CliIo, opts: Record<string, unknown>) => Promise<number>;
  const run = (load: () => Promise<Record<string, unknown>>, name = 'default') =>
    async (...args: unknown[]): Promise<void> => {
      const command = args[args.length - 1] as Command;
      const opts = { ...commandLineOptions(command), args: command.args };
      setExit(await ((await load())[name] as Handler)(io, opts));
    };

  program
    .command('capture')
    .description('Snapshot target/ into the archive, each artifact under its own invocation')
    .addOption(new Option('--phase <phase>', 'when this capture happens relative to dbt').choices([...CAPTURE_PHASES]).default('manual'))
    .option('--branch <name>', 'the line of history to file this capture on')
    .option('--dry-run', 'show what would be captured, write nothing')
    .option('--quiet', 'print nothing unless something failed')
    .option('--json', 'print the result as JSON')
    .action(run(() => import('./commands/capture.js')));

  program
    .command('run')
    .description('Capture, run a command (dbt …) with the terminal passed through, capture again, exit with its code')
    .argument('<command...>', 'the command to run, after --')
    .passThroughOptions()
    .option('--branch <name>', 'the line of history to file these captures on')
    .option('--quiet', 'print nothing of our own unless something failed')
    .action(run(() => import('./commands/run.js')));

  program
    .command('state')
    .description("Write a directory that dbt's --state accepts, and print its path")
    .option('--last-success', 'the newest successful build or run (the default)')
    .option('--per-node', "each node from its own newest successful build, across invocations (synthesized)")
    .option('--invocation <id>', 'a given invocation, by id or unique prefix')
    .option('--target <name>', 'only invocations run against this dbt target')
    .option('--command <names>', 'which dbt commands count as a success (comma-separated)', 'build,run')
    .option('--branch <name>', "only this line of history; falls back to the branch's base")
    .option('--out <dir>', 'where to write it (default: <store>/state/<invocation>)')
    .option('--artifacts <names>', 'which archived artifacts to write (comma-separated; default: manifest,run_results,sources)')
    .option('--allow-failed', "with --branch: accept the branch's base even if that run failed")
    .option('--json', 'print what was chosen as JSON')
    .action(run(() => import('./commands/state.js')));

  program
    .command('plan')
    .description('For the manifest in target/: which nodes can be reused and which must build, and why')
    .option('-s, --select <selectors...>', "dbt's simple selectors: names, tag:, path:, resource_type:, + and n+ operators")
    .option('--exclude <selectors...>', 'the same forms, taken out')
    .option('--target <name>', 'count only builds on this dbt target (default: the planned invocation\'s)')
    .option('--branch <name>', "count only builds on this line of history (default: the planned invocation's)")
    .option('--defer-to <branch>', "nodes never built on this branch may reuse that branch's builds")
    .option('--invocation <id>', 'plan an archived invocation (id, unique prefix or @branch) instead of target/')
    .addOption(new Option('--format <format>', 'table, json, selector (nodes to build) or exclude (nodes to reuse)').choices(['table', 'json', 'selector', 'exclude']).default('table'))
    .option('--explain <node>', 'print the checks behind one node\'s verdict')
    .option('--no-record', 'do not record the plan in the archive')
    .option('--json', 'same as --format json')
    .action(run(() => import('./commands/plan.js')));

  program
    .command('explain')
    .description("One node's verdict with each check: old value, new value, result")
    .argument('<node>', 'a name, selector or unique_id')
    .option('--target <name>', 'count only builds on this dbt target')
    .option('--branch <name>', 'count only builds on this line of history')
    .option('--defer-to <branch>', "nodes never built on this branch may reuse that branch's builds")
    .option('--invocation <id>', 'plan an archived invocation instead of target/')
    .option('--json', 'print as JSON')
    .action(run(() => import('./commands/explain.js')));

  program
    .command('history')
    .description('Recent invocations: when, command, target, results by status, duration, git')
    .option('--limit <n>', 'how many', positiveInt, 20)
    .option('--target <name>', 'only this dbt target')
    .option('--command <name>', 'only this dbt command (build, run, test, ...)')
    .addOption(new Option('--status <outcome>', 'ok: results, none failed; failed: some error or fail; none: no results').choices(['ok', 'failed', 'none']))
    .option('--branch <name>', 'only this line of history')
    .option('--since <time>', 'only invocations at or after this time (ISO 8601, a date alone from its start; or back from now: 12h, 7d, 2w, today, yesterday)')
    .option('--until <time>', 'only invocations at or before this time (ISO 8601, a date alone to its end; or 12h, 7d, yesterday…)')
    .option('--node <name>', "one model's or test's runs: its name or unique id")
    .option('--failed', "only failed invocations, one line per failed node with dbt's message")
    .option('--json', 'print as JSON')
    .action(run(() => import('./commands/history.js')));

  program
    .command('query')
    .description('Run read-only SQL on the store (its tables and views: docs/store.md, or query "show tables")')
    .argument('[sql...]', 'the SQL; read from stdin when absent')
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'json', 'csv', 'markdown']).default('table'))
    .option('--limit <n>', 'at most this many rows', positiveInt)
    .option('--max-bytes <n>', 'at most this many bytes of rows, counted as JSON', positiveInt)
    .option('--timeout <seconds>', 'stop the query after this long (0: never)', wholeSeconds, 300)
    .option('--json', 'same as --format json')
    .action(run(() => import('./commands/query.js')));

  program
    .command('rebuild')
    .description('Re-derive the whole DuckDB store from the archive')
    .option('--json', 'print the report as JSON')
    .action(run(() => import('./commands/rebuild.js')));

  program
    .command('inspect')
    .description('Which code, data and run produced an invocation, and what changed since the previous run')
    .argument('[invocation]', 'an id, a unique prefix, or @branch for its latest')
    .option('--at <time>', 'the latest invocation at or before this time (ISO 8601, or back from now: 12h, 7d, yesterday…)')
    .option('--nearest', 'when it has no manifest, compare nodes through the nearest earlier run that has one')
    .option('--json', 'print as JSON')
    .action(run(() => import('./commands/inspect.js')));

  program
    .command('show')
    .description('What a node ran: its compiled SQL, the statement dbt executed, and its lines of dbt.log')
    .argument('<node>', 'a unique_id, or a node name')
    .option('--invocation <id>', 'this invocation (id, unique prefix or @branch) instead of the latest that ran the node')
    .option('--at <time>', 'the latest invocation at or before this time (ISO 8601, or back from now: 12h, 7d, yesterday…)')
    .option('--compiled', 'only the compiled SQL (target/compiled), as written')
    .option('--run', 'only the executed statement (target/run), as written')
    .option('--log', "only the node's lines of dbt.log")
    .option('--json', 'print as JSON')
    .action(run(() => import('./commands/show.js')));

  program
    .command('diff')
    .description('What changed between two invocations: nodes, statuses, runtimes, git range, catalog snapshot')
    .argument('<from>', 'an id, a unique prefix, or @branch')
    .argument('<to>', 'an id, a unique prefix, or @branch')
    .option('--nearest', 'compare nodes of a side without a manifest through the nearest earlier run that has one')
    .option('--json', 'print as JSON')
    .action(run(() => import('./commands/diff.js')));

  program
    .command('report')
    .description('The history as one self-contained HTML file (charts, runs, models, tests, sources), or a markdown summary for a pull request')
    .option('--out <file>', 'where to write the HTML report', 'report.html')
    .addOption(new Option('--format <format>', 'html, or markdown: a summary from --from to --to on stdout').choices(['html', 'markdown']).default('html'))
    .option('--since <time>', 'only invocations at or after this time (ISO 8601, or back from now: 12h, 7d, 2w, today, yesterday)')
    .option('--last <n>', 'only the newest N invocations', positiveInt)
    .option('--target <name>', 'only this dbt target')
    .option('--branch <name>', 'only this line of history')
    .option('--from <id>', 'markdown: the earlier run (default: the run before --to on its branch and target)')
    .option('--to <id>', 'markdown: the later run (default: the newest)')
    .option('--report-url <url>', "markdown: where the HTML report is (a CI artifact), linked when lists are cut to fit GitHub's 65,536-character comment")
    .option('--open', 'open the report in a browser once written')
    .option('--json', 'print what was written as JSON')
    .action(run(() => import('./commands/report.js')));

  program
    .command('export')
    .description('The history as a Parquet dataset (a table per entity, partitioned by project and day) that Spark, Trino, Athena, Snowflake, BigQuery and DuckDB read')
    .option('--to <dir|s3://bucket/prefix>', "where the dataset is (default: export.to of dbtattic.yml)")
    .option('--project <name>', "the project partition to file this store's runs under (default: export.project, else the dbt project's name and its git remote)")
    .option('--dry-run', 'say what would be written and deleted, write nothing')
    .option('--json', 'print what was done as JSON')
    .action(run(() => import('./commands/export.js')));

  const branch = program.command('branch').description('Lines of history: list them, start one at a past run, or delete one');
  branch
    .command('list')
    .description('Every branch with its head and, for branches made with create, its base')
    .option('--json', 'print as JSON')
    .action(run(() => import('./commands/branch.js'), 'list'));
  branch
    .command('create')
    .description('Start a branch whose base is a past run (state falls back to it)')
    .argument('<name>', 'the new branch')
    .requiredOption('--from <invocation>', 'the base run: an invocation id, unique prefix or @branch (its newest run)')
    .option('--allow-failed', 'allow a base run that failed or has no results')
    .option('--json', 'print the new branch as JSON')
    .action(run(() => import('./commands/branch.js'), 'create'));
  branch
    .command('delete')
    .description("Remove a branch's name, head and base; the captures filed on it stay in history")
    .argument('<name>', 'the branch')
    .option('--json', 'print the deleted branch as JSON')
    .action(run(() => import('./commands/branch.js'), 'remove'));

  program
    .command('sync')
    .description("Catch the local store up with the archive (for a remote store: only what is new since the last sync)")
    .option('--json', 'print the report as JSON')
    // `run` starts it with the captures it filed, to catch up on beside dbt's caller (cli/after-capture.ts).
    .addOption(new Option('--after-capture <capture-ids>').hideHelp())
    .action(run(() => import('./commands/sync.js')));

  program
    .command('compact')
    .description('Copy the local store without the space ingest left behind, once it is worth it (capture starts this in the background)')
    .option('--force', 'copy it even when little would be saved')
    .option('--quiet', 'print nothing unless something failed')
    .option('--json', 'print the outcome as JSON')
    .action(run(() => import('./commands/compact.js')));

  // Each import named in full: the build bundles the commands (scripts/bundle-cli.mjs), and a
  // bundler cannot follow an import whose path is computed.
  for (const [name, description, load] of [
    ['push', 'Copy what the other store (an s3:// URI or a directory; default: remote: in dbtattic.yml) lacks to it', () => import('./commands/push.js')],
    ['pull', 'Copy what this store lacks from the other store (an s3:// URI or a directory; default: remote: in dbtattic.yml)', () => import('./commands/pull.js')],
  ] as const) {
    program
      .command(name)
      .description(description)
      .argument('[remote]', 'the other store')
      .option('--json', 'print the report as JSON')
      .action(run(load));
  }

  const keep = program
    .command('forget')
    .description('Keep, per branch and target, the invocations a policy names (restic-style) and remove the records of the others')
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
  keep.action(run(() => import('./commands/forget.js')));

  program
    .command('prune')
    .description('Delete the objects no record needs (after forget), safely beside captures at work')
    .option('--dry-run', 'delete nothing: say what would go')
    .option('--grace <duration>', 'keep unreferenced objects younger than this (default 1h, or retention.prune_grace; 0 for none)')
    .option('--json', 'print the report as JSON')
    .action(run(() => import('./commands/prune.js')));

  program
    .command('verify')
    .description('Re-hash every object and check every record, like git fsck')
    .option('--repair', 're-write damaged objects from intact copies (target/, state directories), then say what remains lost')
    .option('--json', 'print the report as JSON')
    .action(run(() => import('./commands/verify.js')));

  program
    .command('mcp')
    .description('Serve the history to agents: a read-only Model Context Protocol server on stdio')
    .option('--max-rows <n>', 'the most rows a query tool may return', positiveInt, 1000)
    .option('--max-bytes <n>', 'the most bytes of rows (as JSON) one answer holds', positiveInt, 4_000_000)
    .option('--max-request-bytes <n>', 'a request larger than this is refused with a JSON-RPC error', positiveInt, 1_000_000)
    .option('--max-seconds <n>', 'the longest a query tool may run before it is stopped (query --timeout)', positiveSeconds, 60)
    .action(run(() => import('./commands/mcp.js')));

  program
    .command('info')
    .description('Show the resolved configuration and what the archive holds')
    .option('--json', 'print as JSON')
    .action(run(() => import('./commands/info.js')));

  addGlobalOptions(program);
  return program;
}

/**
 * The global flags, accepted before the subcommand and after it (where everyone types them),
 * and listed under their own heading in every command's --help.
 */
function addGlobalOptions(command: Command): void {
  command.addOption(new Option('--store <dir>', 'the dbtattic store: a directory or s3://bucket/prefix (default: .dbtattic in the dbt project)').helpGroup('Global options:'));
  command.addOption(new Option('--project-dir <dir>', 'the dbt project (default: the nearest dbt_project.yml above the working directory)').helpGroup('Global options:'));
  command.addOption(new Option('--no-pager', 'never send long output on a terminal through the pager').helpGroup('Global options:'));
  command.addOption(new Option('--target-path <dir>', "dbt's target directory, relative to the project (default: target-path of dbt_project.yml, else target)").helpGroup('Global options:'));
  command.addOption(new Option('--offline', 'reading commands use the local store as it is, without catching up with the archive first').helpGroup('Global options:'));
  for (const sub of command.commands) addGlobalOptions(sub);
}

/**
 * Options of the command and every command above it; the one nearest the action wins. An empty
 * value (`--invocation "$ID"` with ID unset) is refused: read as not given, it chose something
 * the script did not ask for (the last success instead of an invocation).
 */
function commandLineOptions(command: Command): Record<string, unknown> {
  const chain: Command[] = [];
  for (let c: Command | null = command; c; c = c.parent) chain.unshift(c);
  const merged: Record<string, unknown> = {};
  for (const c of chain) {
    for (const [key, value] of Object.entries(c.opts())) {
      if (value === '' || (Array.isArray(value) && value.includes(''))) throw new AtticError('usage', `--${kebab(key)} was given an empty value.`);
      if (value !== undefined) merged[key] = value;
    }
  }
  return merged;
}

function kebab(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** Past 2^31 - 1 a count means nothing here, and DuckDB's BIGINT refused what Number still took. */
const MAX_COUNT = 2_147_483_647;
/** The longest timer Node keeps (2^31 - 1 ms, about 24.8 days); past it, a timer fires at once. */
const MAX_SECONDS = 2_147_483;

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0 || n > MAX_COUNT) throw new InvalidArgumentError(`expected a whole number from 1 to ${MAX_COUNT}.`);
  return n;
}

function wholeSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > MAX_SECONDS) throw new InvalidArgumentError(`expected a whole number of seconds up to ${MAX_SECONDS} (0: no limit).`);
  return n;
}

function positiveSeconds(value: string): number {
  const n = wholeSeconds(value);
  if (n === 0) throw new InvalidArgumentError(`expected a whole number of seconds from 1 to ${MAX_SECONDS}.`);
  return n;
}

export async function main(argv: string[], terminalIo: CliIo = processIo()): Promise<number> {
  let exitCode: number = ExitCode.ok;
  const paging = startPaging(terminalIo, terminalIo.stdout, !argv.includes('--no-pager'));
  const io = wrappingTalk(paging.io);
  const program = buildProgram(io, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    return reportError(io, error, argv.includes('--json'));
  } finally {
    forgetWrittenBlobs();
    await paging.finish();
  }
}

/**
 * A full or unwritable disk met where no layer said what it was writing (a report's file, a
 * store's compacted copy, a ref directory) is still the machine's problem, never a bug of ours.
 */
function diskRefusal(error: unknown): AtticError | null {
  const file = (error as { path?: unknown } | null)?.path;
  if (typeof file !== 'string') return null;
  const refused = asDiskError(error, file, file, 'run it where it can write');
  return isAtticError(refused) ? refused : null;
}

function reportError(io: CliIo, error: unknown, asJson: boolean): number {
  if (error instanceof CommanderError) {
    // Help and --version arrive here as "errors" with exit code 0; commander printed the text.
    if (error.exitCode === 0) return ExitCode.ok;
    if (asJson) printJson(io, { error: { code: 'usage', message: error.message.replace(/^error: /, '') } });
    return ExitCode.usage;
  }
  const attic = isAtticError(error) ? error : diskRefusal(error);
  const code = attic?.exitCode ?? ExitCode.internal;
  const message = attic?.message ?? `internal error: ${error instanceof Error ? (io.env.DBTATTIC_DEBUG ? error.stack : error.message) : String(error)}. Please report this.`;
  if (asJson) printJson(io, { error: { code: attic?.code ?? 'internal', message, ...attic?.details } });
  else io.stderr(`${io.color.red('error:')} ${message}\n`);
  return code;
}
