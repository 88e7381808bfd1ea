import type { Command } from '@commander-js/extra-typings';
import { defineCommand, type FlagsOf } from '../command-module.js';
import { openArchive } from '../../archive/index.js';
import { AtticError, ExitCode } from '../../errors.js';
import { readNodeOutput, withCurrentStore, type NodeOutput } from '../../store/index.js';
import { loadConfig } from '../context.js';
import { printJson, type CliIo } from '../io.js';

const options = (command: Command) =>
  command
    .argument('<node>', 'a unique_id, or a node name')
    .option('--invocation <id>', 'this invocation (id, unique prefix or @branch) instead of the latest that ran the node')
    .option('--at <time>', 'the latest invocation at or before this time (ISO 8601, or back from now: 12h, 7d, yesterday…)')
    .option('--compiled', 'only the compiled SQL (target/compiled), as written')
    .option('--run', 'only the executed statement (target/run), as written')
    .option('--log', "only the node's lines of dbt.log")
    .option('--json', 'print as JSON');

type ShowFlags = FlagsOf<typeof options>;

export default defineCommand(options, show);

type Part = 'compiled' | 'run' | 'log';

/**
 * What a node ran: its compiled SQL, the statement dbt executed and its lines of dbt.log. With
 * exactly one of --compiled, --run, --log, that text alone, byte for byte (for a pipe).
 */
async function show(io: CliIo, flags: ShowFlags): Promise<number> {
  if (flags.invocation && flags.at) throw new AtticError('usage', 'Give --invocation or --at, not both (--at chooses the invocation).');
  const config = loadConfig(io, flags);
  const node = flags.args?.[0] ?? '';
  const backend = await openArchive(config.archiveLocation, { create: false });
  const output = await withCurrentStore(config, (db) => readNodeOutput(db.connection, backend, { node, invocation: flags.invocation, at: flags.at }));
  const asked = (['compiled', 'run', 'log'] as const).filter((p) => flags[p]);
  const parts: Part[] = asked.length > 0 ? asked : ['compiled', 'run', 'log'];
  if (flags.json) {
    printJson(io, { invocation_id: output.invocation_id, unique_id: output.unique_id, ...Object.fromEntries(parts.map((p) => [p, output[p]])) });
    return ExitCode.ok;
  }
  if (parts.length === 1) return printOne(io, output, parts[0]!);
  io.stderr(`${output.unique_id} in invocation ${output.invocation_id}\n`);
  for (const part of parts) printSection(io, output, part);
  return ExitCode.ok;
}

function printOne(io: CliIo, output: NodeOutput, part: Part): number {
  const text = part === 'log' ? output.log?.map((l) => `${l}\n`).join('') : output[part]?.sql;
  if (text === undefined) {
    throw new AtticError('not-found', `Invocation ${output.invocation_id} has no ${part === 'log' ? 'dbt.log slice' : `${part} SQL`} for ${output.unique_id}.`);
  }
  if (part === 'compiled' && output.compiled?.from === 'manifest') io.stderr(`note: the SQL is invocation ${output.invocation_id}'s ${MANIFEST_SQL}\n`);
  io.stdout(text);
  return ExitCode.ok;
}

/** Where SQL came from when dbt's file did not reach the archive: said, so no one diffs it against a file as if it were one. */
const MANIFEST_SQL = 'manifest compiled_code (no file dbt wrote under target/compiled was archived)';

function printSection(io: CliIo, output: NodeOutput, part: Part): void {
  if (part === 'log') {
    io.stdout(`-- log (dbt.log lines naming ${output.unique_id})\n`);
    io.stdout(output.log ? output.log.map((l) => `${l}\n`).join('') : '-- (no log captured)\n');
    return;
  }
  const sql = output[part];
  io.stdout(`-- ${part}: ${sql ? (sql.from === 'manifest' ? MANIFEST_SQL : sql.path) : '(none)'}\n`);
  if (sql) io.stdout(sql.sql.endsWith('\n') ? sql.sql : `${sql.sql}\n`);
}
