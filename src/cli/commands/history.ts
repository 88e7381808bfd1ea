import { ExitCode } from '../../errors.js';
import { invocationAbbreviator, readHistory, withCurrentStore, type HistoryRow } from '../../store/index.js';
import { shortId } from '../../vocab/index.js';
import { loadConfig, type GlobalFlags } from '../context.js';
import { formatDuration, formatTime, printTable } from '../format.js';
import { printJson, type CliIo } from '../io.js';
import { startProgress } from '../progress.js';

interface HistoryFlags extends GlobalFlags {
  limit?: number;
  target?: string;
  command?: string;
  status?: string;
  json?: boolean;
}

export default async function history(io: CliIo, flags: HistoryFlags): Promise<number> {
  const config = loadConfig(io, flags);
  const progress = startProgress(io, 'catching up');
  const { rows, abbreviate } = await withCurrentStore(
    config,
    async (db) => ({
      rows: await readHistory(db.connection, { limit: flags.limit ?? 20, target: flags.target, command: flags.command, status: parseStatus(flags.status), branch: flags.branch }),
      abbreviate: await invocationAbbreviator(db.connection),
    }),
    progress.update,
  ).finally(progress.stop);
  if (flags.json) printJson(io, rows);
  else if (rows.length === 0) io.stderr('No invocations match. Capture some with dbtattic capture or dbtattic run -- dbt build.\n');
  else printTable(io, ['when', 'invocation', 'command', 'target', 'results', 'took', 'git', 'branch'], rows.map((row) => humanRow(io, row, abbreviate)));
  return ExitCode.ok;
}

function humanRow(io: CliIo, row: HistoryRow, abbreviate: (id: string) => string): string[] {
  const counts = Object.entries(row.status_counts ?? {}).map(([status, n]) => colourCount(io, status, n)).join(' ');
  return [
    formatTime(row.at),
    abbreviate(row.invocation_id),
    row.command ?? '-',
    row.target ?? '-',
    counts || '-',
    formatDuration(row.elapsed_s),
    row.git_sha ? shortId(row.git_sha, 7) : '-',
    row.branch ?? row.git_branch ?? '-',
  ];
}

function colourCount(io: CliIo, status: string, n: number): string {
  const text = `${n} ${status}`;
  if (['error', 'fail', 'runtime error', 'partial success'].includes(status)) return io.color.red(text);
  if (status === 'warn' || status === 'skipped') return io.color.yellow(text);
  return io.color.green(text);
}

function parseStatus(value: string | undefined): 'ok' | 'failed' | 'none' | undefined {
  return value === 'ok' || value === 'failed' || value === 'none' ? value : undefined;
}
