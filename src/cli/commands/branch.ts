import type { Command } from '@commander-js/extra-typings';
import { defineCommand, defineGroup, type FlagsOf } from '../command-module.js';
import { deleteBranch, listBranches, listInvocationIds, openArchive } from '../../archive/index.js';
import { ExitCode } from '../../errors.js';
import { createBranchFrom } from '../../state/index.js';
import { timeOfTimeId, uniquePrefixes } from '../../vocab/index.js';
import { loadConfig } from '../context.js';
import { formatTime } from '../format.js';
import { printJson, type CliIo } from '../io.js';
import { id, printTable, text, time } from '../print-table.js';

const listOptions = (command: Command) => command.option('--json', 'print as JSON');

const createOptions = (command: Command) =>
  command
    .argument('<name>', 'the new branch')
    .requiredOption('--from <invocation>', 'the base run: an invocation id, unique prefix or @branch (its newest run)')
    .option('--allow-failed', 'allow a base run that failed or has no results')
    .option('--json', 'print the new branch as JSON');

const deleteOptions = (command: Command) => command.argument('<name>', 'the branch').option('--json', 'print the deleted branch as JSON');

export default defineGroup([
  ['list', 'Every branch with its head and, for branches made with create, its base', defineCommand(listOptions, list)],
  ['create', 'Start a branch whose base is a past run (state falls back to it)', defineCommand(createOptions, create)],
  ['delete', "Remove a branch's name, head and base; the captures filed on it stay in history", defineCommand(deleteOptions, remove)],
]);

async function list(io: CliIo, flags: FlagsOf<typeof listOptions>): Promise<number> {
  const config = loadConfig(io, flags);
  const backend = await openArchive(config.archiveLocation, { create: false, remote: config.remote });
  const branches = await listBranches(backend);
  const shortId = flags.json ? (id: string) => id : uniquePrefixes(await listInvocationIds(backend));
  if (flags.json) printJson(io, branches);
  else if (branches.length === 0) io.stderr('No branches yet: captures are filed on the git branch, or on --branch / DBTATTIC_BRANCH.\n');
  else
    printTable(
      io,
      [id('branch'), id('head'), time('updated'), text('base')],
      branches.map((b) => [
        b.name,
        b.head_invocation_id ? shortId(b.head_invocation_id) : '-',
        formatTime((b.head_capture_id ? timeOfTimeId(b.head_capture_id)?.toISOString() : undefined) ?? b.created_at),
        b.base ? `${shortId(b.base.invocation_id)}${b.base.branch ? ` on ${b.base.branch}` : ''}` : '-',
      ]),
    );
  return ExitCode.ok;
}

async function create(io: CliIo, flags: FlagsOf<typeof createOptions>): Promise<number> {
  const name = flags.args?.[0] ?? '';
  const config = loadConfig(io, flags);
  const backend = await openArchive(config.archiveLocation, { create: false, remote: config.remote });
  const branch = await createBranchFrom(backend, name, flags.from ?? '', flags.allowFailed ?? false, new Date(), (what) => io.stderr(`branch: ${what}\n`));
  if (flags.json) printJson(io, branch);
  else io.stderr(`created branch ${branch.name} from invocation ${uniquePrefixes(await listInvocationIds(backend))(branch.base?.invocation_id ?? '')}\n`);
  return ExitCode.ok;
}

async function remove(io: CliIo, flags: FlagsOf<typeof deleteOptions>): Promise<number> {
  const name = flags.args?.[0] ?? '';
  const config = loadConfig(io, flags);
  const backend = await openArchive(config.archiveLocation, { create: false, remote: config.remote });
  const branch = await deleteBranch(backend, name);
  if (flags.json) printJson(io, branch);
  else {
    const was = branch.head_invocation_id ? ` (was at ${uniquePrefixes(await listInvocationIds(backend))(branch.head_invocation_id)})` : '';
    io.stderr(`deleted branch ${branch.name}${was}; its captures stay in history\n`);
  }
  return ExitCode.ok;
}
