import { deleteBranch, listBranches, listInvocationIds, openArchive } from '../../archive/index.js';
import { ExitCode } from '../../errors.js';
import { createBranchFrom } from '../../state/index.js';
import { timeOfTimeId, uniquePrefixes } from '../../vocab/index.js';
import { loadConfig, type GlobalFlags } from '../context.js';
import { formatTime } from '../format.js';
import { printJson, type CliIo } from '../io.js';
import { id, printTable, text, time } from '../print-table.js';

interface BranchFlags extends GlobalFlags {
  args?: string[];
  from?: string;
  allowFailed?: boolean;
  json?: boolean;
}

export async function list(io: CliIo, flags: BranchFlags): Promise<number> {
  const config = loadConfig(io, flags);
  const backend = await openArchive(config.archiveLocation, { create: false, remote: config.remote });
  const branches = await listBranches(backend);
  const shortId = flags.json ? (id: string) => id : uniquePrefixes(await listInvocationIds(backend));
  if (flags.json) printJson(io, branches);
  else if (branches.length === 0) io.stderr('No branches yet: captures are filed on the git branch, or on --branch / DBTATTIC_BRANCH.\n');
  else printTable(io, [id('branch'), id('head'), time('updated'), text('base')], branches.map((b) => [
    b.name,
    b.head_invocation_id ? shortId(b.head_invocation_id) : '-',
    formatTime((b.head_capture_id ? timeOfTimeId(b.head_capture_id)?.toISOString() : undefined) ?? b.created_at),
    b.base ? `${shortId(b.base.invocation_id)}${b.base.branch ? ` on ${b.base.branch}` : ''}` : '-',
  ]));
  return ExitCode.ok;
}

export async function create(io: CliIo, flags: BranchFlags): Promise<number> {
  const name = flags.args?.[0] ?? '';
  const config = loadConfig(io, flags);
  const backend = await openArchive(config.archiveLocation, { create: false, remote: config.remote });
  const branch = await createBranchFrom(backend, name, flags.from ?? '', flags.allowFailed ?? false, new Date(), (what) => io.stderr(`branch: ${what}\n`));
  if (flags.json) printJson(io, branch);
  else io.stderr(`created branch ${branch.name} from invocation ${uniquePrefixes(await listInvocationIds(backend))(branch.base?.invocation_id ?? '')}\n`);
  return ExitCode.ok;
}

export async function remove(io: CliIo, flags: BranchFlags): Promise<number> {
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
