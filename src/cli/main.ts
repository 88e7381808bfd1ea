import { Command, CommanderError, Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { type AtticError, ExitCode, asDiskError, isAtticError } from '../errors.js';
import type { CommandModule } from './command-module.js';
import { printJson, processIo, type CliIo } from './io.js';
import { forgetWrittenBlobs } from '../archive/written-blobs.js';
import { startPaging } from './pager.js';
import { wrappingTalk } from './wrap-lines.js';
import { TOOL_VERSION } from './version.js';

/**
 * Every command: its name and arguments and the line `dbtattic --help` lists it with, and its
 * module (options, arguments described, typed flags, handler), loaded only when called, so
 * `capture` never loads DuckDB; a test holds the arguments here to the module's. Each import
 * is named in full: the build bundles each command as a chunk (scripts/bundle-cli.mjs), and a
 * bundler cannot follow an import whose path is computed.
 */
const COMMANDS: ReadonlyArray<readonly [synopsis: string, description: string, load: () => Promise<{ default: CommandModule }>]> = [
  ['capture', 'Snapshot target/ into the archive, each artifact under its own invocation', () => import('./commands/capture.js')],
  ['run <command...>', 'Capture, run a command (dbt …) with the terminal passed through, capture again, exit with its code', () => import('./commands/run.js')],
  ['state', "Write a directory that dbt's --state accepts, and print its path", () => import('./commands/state.js')],
  ['plan', 'For the manifest in target/: which nodes can be reused and which must build, and why', () => import('./commands/plan.js')],
  ['explain <node>', "One node's verdict with each check: old value, new value, result", () => import('./commands/explain.js')],
  ['history', 'Recent invocations: when, command, target, results by status, duration, git', () => import('./commands/history.js')],
  ['query [sql...]', 'Run read-only SQL on the store (its tables and views: docs/store.md, or query "show tables")', () => import('./commands/query.js')],
  ['rebuild', 'Re-derive the whole DuckDB store from the archive', () => import('./commands/rebuild.js')],
  ['inspect [invocation]', 'Which code, data and run produced an invocation, and what changed since the previous run', () => import('./commands/inspect.js')],
  ['show <node>', 'What a node ran: its compiled SQL, the statement dbt executed, and its lines of dbt.log', () => import('./commands/show.js')],
  ['diff <from> <to>', 'What changed between two invocations: nodes, statuses, runtimes, git range, catalog snapshot', () => import('./commands/diff.js')],
  [
    'report',
    'The history as one self-contained HTML file (charts, runs, models, tests, sources), or a markdown summary for a pull request',
    () => import('./commands/report.js'),
  ],
  [
    'export',
    'The history as a Parquet dataset (a table per entity, partitioned by project and day) that Spark, Trino, Athena, Snowflake, BigQuery and DuckDB read',
    () => import('./commands/export.js'),
  ],
  ['branch', 'Lines of history: list them, start one at a past run, or delete one', () => import('./commands/branch.js')],
  ['sync', 'Catch the local store up with the archive (for a remote store: only what is new since the last sync)', () => import('./commands/sync.js')],
  [
    'compact',
    'Copy the local store without the space ingest left behind, once it is worth it (capture starts this in the background)',
    () => import('./commands/compact.js'),
  ],
  [
    'push [remote]',
    'Copy what the other store (an s3:// URI or a directory; default: remote: in dbtattic.yml) lacks to it',
    () => import('./commands/push.js'),
  ],
  [
    'pull [remote]',
    'Copy what this store lacks from the other store (an s3:// URI or a directory; default: remote: in dbtattic.yml)',
    () => import('./commands/pull.js'),
  ],
  [
    'forget',
    'Keep, per branch and target, the invocations a policy names (restic-style) and remove the records of the others',
    () => import('./commands/forget.js'),
  ],
  ['prune', 'Delete the objects no record needs (after forget), safely beside captures at work', () => import('./commands/prune.js')],
  ['verify', 'Re-hash every object and check every record, like git fsck', () => import('./commands/verify.js')],
  ['mcp', 'Serve the history to agents: a read-only Model Context Protocol server on stdio', () => import('./commands/mcp.js')],
  ['info', 'Show the resolved configuration and what the archive holds', () => import('./commands/info.js')],
];

/** Global options that take a value: the word after one is its value, never the command's name. */
const GLOBAL_VALUES = new Set(['--store', '--project-dir', '--target-path']);

/**
 * The program with the module of the command argv calls loaded (of every command for `help`);
 * the others are there by synopsis and description, which is all `--help` and a mistyped
 * name's suggestion need. `main()` is the one place errors become output and exit codes.
 */
export async function buildProgram(argv: readonly string[], io: CliIo, setExit: (code: number) => void): Promise<Command> {
  const program = new Command('dbtattic')
    .description('Preserve and query the history of dbt artifacts.')
    .version(TOOL_VERSION)
    .enablePositionalOptions()
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  const called = calledCommand(argv);
  for (const [synopsis, description, load] of COMMANDS) {
    const name = synopsis.split(' ')[0]!;
    if (called !== name && called !== 'help') program.command(synopsis).description(description);
    else (await load()).default.attach(program.command(name).description(description), { io, setExit });
  }
  addGlobalOptions(program);
  return program;
}

/** The first word of argv that is neither an option nor a global option's value. */
function calledCommand(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') return undefined;
    if (!word.startsWith('-')) return word;
    if (GLOBAL_VALUES.has(word)) i++;
  }
  return undefined;
}

/**
 * The global flags, accepted before the subcommand and after it (where everyone types them),
 * and listed under their own heading in every command's --help.
 */
function addGlobalOptions(command: CommandUnknownOpts): void {
  command.addOption(
    new Option('--store <dir>', 'the dbtattic store: a directory or s3://bucket/prefix (default: .dbtattic in the dbt project)').helpGroup('Global options:'),
  );
  command.addOption(
    new Option('--project-dir <dir>', 'the dbt project (default: the nearest dbt_project.yml above the working directory)').helpGroup('Global options:'),
  );
  command.addOption(new Option('--no-pager', 'never send long output on a terminal through the pager').helpGroup('Global options:'));
  command.addOption(
    new Option('--target-path <dir>', "dbt's target directory, relative to the project (default: target-path of dbt_project.yml, else target)").helpGroup(
      'Global options:',
    ),
  );
  command.addOption(
    new Option('--offline', 'reading commands use the local store as it is, without catching up with the archive first').helpGroup('Global options:'),
  );
  for (const sub of command.commands) addGlobalOptions(sub);
}

export async function main(argv: string[], terminalIo: CliIo = processIo()): Promise<number> {
  let exitCode: number = ExitCode.ok;
  const paging = startPaging(terminalIo, terminalIo.stdout, !argv.includes('--no-pager'));
  const io = wrappingTalk(paging.io);
  try {
    const program = await buildProgram(argv, io, (code) => {
      exitCode = code;
    });
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
  const message =
    attic?.message ?? `internal error: ${error instanceof Error ? (io.env.DBTATTIC_DEBUG ? error.stack : error.message) : String(error)}. Please report this.`;
  if (asJson) printJson(io, { error: { code: attic?.code ?? 'internal', message, ...attic?.details } });
  else io.stderr(`${io.color.red('error:')} ${message}\n`);
  return code;
}
