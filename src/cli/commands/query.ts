import { Option, type Command } from '@commander-js/extra-typings';
import { defineCommand, type FlagsOf } from '../command-module.js';
import { positiveInt, wholeSeconds } from '../option-values.js';
import { AtticError } from '../../errors.js';
// The module, not the core's index: `query "select 1"` is the floor of every reading command.
import { queryStore } from '../../app/query.js';
import { loadConfig } from '../context.js';
import type { CliIo } from '../io.js';
import { querySink } from '../query-output.js';
import { sayNotice } from '../read-notice.js';
import { withProgress } from '../progress.js';
import { countOf } from '../../vocab/index.js';

const options = (command: Command) =>
  command
    .argument('[sql...]', 'the SQL; read from stdin when absent')
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'json', 'csv', 'markdown'] as const).default('table' as const))
    .option('--limit <n>', 'at most this many rows', positiveInt)
    .option('--max-bytes <n>', 'at most this many bytes of rows, counted as JSON', positiveInt)
    .option('--timeout <seconds>', 'stop the query after this long (0: never)', wholeSeconds, 300)
    .option('--json', 'same as --format json');

type QueryFlags = FlagsOf<typeof options>;

export default defineCommand(options, query);

async function query(io: CliIo, flags: QueryFlags): Promise<number> {
  const sql = flags.args?.join(' ').trim() || (await io.readStdin());
  if (!sql.trim()) throw new AtticError('usage', 'Give SQL as an argument or on stdin, e.g. dbtattic query "select * from invocation".');
  const config = loadConfig(io, flags);
  const sink = querySink(io, flags.json ? 'json' : (flags.format ?? 'table'));
  const request = { sql, limit: flags.limit ?? null, maxBytes: flags.maxBytes ?? null, timeoutMs: flags.timeout ? flags.timeout * 1000 : null };
  const { value: outcome, notice } = await withProgress(io, 'catching up', (update) => queryStore(config, request, sink, update));
  sink.end();
  if (outcome.cutBy === 'bytes')
    io.stderr(`(showing the first ${countOf(outcome.rows, 'row')}, within ${countOf(flags.maxBytes ?? 0, 'byte')}; raise --max-bytes for more)\n`);
  else if (outcome.truncated) io.stderr(`(showing the first ${countOf(flags.limit ?? 0, 'row')}; raise --limit for more)\n`);
  return sayNotice(io, config, notice);
}
