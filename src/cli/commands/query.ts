import { ExitCode } from '../../errors.js';
import { runReadOnlyQuery, syncForReading, type QueryResult } from '../../store/index.js';
import { loadConfig, type GlobalFlags } from '../context.js';
import { printTable } from '../format.js';
import { printJson, type CliIo } from '../io.js';
import { readStdin } from '../stdin.js';
import { withProgress } from '../progress.js';
import { countOf } from '../../vocab/index.js';

interface QueryFlags extends GlobalFlags {
  args?: string[];
  format?: 'table' | 'json' | 'csv' | 'markdown';
  limit?: number;
  json?: boolean;
}

export default async function query(io: CliIo, flags: QueryFlags): Promise<number> {
  const sql = flags.args?.join(' ').trim() || (await readStdin());
  if (!sql.trim()) {
    io.stderr('error: give SQL as an argument or on stdin, e.g. dbtattic query "select * from invocation"\n');
    return ExitCode.usage;
  }
  const config = loadConfig(io, flags);
  await withProgress(io, 'catching up', (update) => syncForReading(config, update));
  const result = await runReadOnlyQuery(config.databaseFile, sql, flags.limit ?? null);
  printResult(io, result, flags.json ? 'json' : (flags.format ?? 'table'));
  if (result.truncated) io.stderr(`(showing the first ${countOf(flags.limit ?? 0, 'row')}; raise --limit for more)\n`);
  return ExitCode.ok;
}

function printResult(io: CliIo, result: QueryResult, format: NonNullable<QueryFlags['format']>): void {
  const names = result.columns.map((c) => c.name);
  const cells = result.rows.map((row) => names.map((name) => cellText(row[name])));
  switch (format) {
    case 'json':
      return printJson(io, result.rows);
    case 'csv':
      return io.stdout([names, ...cells].map((row) => row.map(csvField).join(',')).join('\n') + '\n');
    case 'markdown':
      return io.stdout(markdownTable(names, cells));
    case 'table':
      return printTable(io, names, cells);
  }
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function csvField(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function markdownTable(names: string[], rows: string[][]): string {
  const escape = (text: string): string => text.replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
  const line = (cells: string[]): string => `| ${cells.map(escape).join(' | ')} |`;
  return [line(names), `|${names.map(() => '---').join('|')}|`, ...rows.map(line)].join('\n') + '\n';
}
