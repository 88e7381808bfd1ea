import type { Command } from '@commander-js/extra-typings';
import type { InfoAnswer, RetentionView } from '../../answers/index.js';
import { infoOf, type InfoFacts } from '../../app/info.js';
import type { AtticConfig } from '../../config/resolve.js';
import { countOf } from '../../vocab/index.js';
import { defineCommand, type FlagsOf } from '../command-module.js';
import { loadConfig } from '../context.js';
import { formatBytes } from '../format.js';
import { printJson, type CliIo } from '../io.js';
import { withProgress } from '../progress.js';
import { sayNotice } from '../read-notice.js';
import { TOOL_VERSION } from '../version.js';
import { wrappingIo } from '../wrap-lines.js';

const options = (command: Command) => command.option('--json', 'print as JSON');

type InfoFlags = FlagsOf<typeof options>;

export default defineCommand(options, info);

async function info(terminal: CliIo, flags: InfoFlags): Promise<number> {
  const io = wrappingIo(terminal);
  const config = loadConfig(io, flags);
  const { value, notice } = await withProgress(io, 'catching up', (update) => infoOf(config, update));
  if (flags.json) printJson(io, { version: TOOL_VERSION, ...value } satisfies InfoAnswer);
  else {
    printHuman(io, config, value);
    if (value.retention) printRetention(io, value.retention);
  }
  return sayNotice(io, config, notice);
}

function printRetention(io: CliIo, view: RetentionView): void {
  io.stdout(`${'retention'.padEnd(16)}${view.policy}${io.color.dim(`  (${view.source})`)}\n`);
  io.stdout(
    `${''.padEnd(16)}would forget ${countOf(view.would_forget, 'invocation')} (keep ${view.would_keep}) and free ${formatBytes(view.would_free_bytes)}\n`,
  );
}

function printHuman(io: CliIo, config: AtticConfig, { archive, store, remote, config: view }: InfoFacts): void {
  const line = (key: string, value: string, source?: string): void =>
    io.stdout(`${key.padEnd(KEY_WIDTH)}${value}${source ? io.color.dim(`  (${source})`) : ''}\n`);
  line('version', TOOL_VERSION);
  line('project', config.projectDir?.value ?? '-', config.projectDir?.source);
  line('target', config.targetDir?.value ?? '-', config.targetDir?.source);
  line('store', config.store.value, config.store.source);
  line('artifacts', config.artifacts.value.join(', '), config.artifacts.source);
  line('branch', config.branch?.value ?? '(the git branch)', config.branch?.source);
  const catalog = view.catalog;
  if (catalog) line('catalog', 'error' in catalog ? io.color.red(`invalid: ${catalog.error}`) : describeCatalog(catalog.value), catalog.source);
  if (remote) {
    const probed = Object.entries(remote.capabilities)
      .map(([k, v]) => `${k} ${String(v)}`)
      .join(', ');
    line('remote', remote.uri);
    line('capabilities', `${probed}; branch heads by ${remote.branch_heads}`);
    line('cache', remote.cache.value, remote.cache.source);
  }
  if (!archive) {
    line('archive', 'none yet: run dbtattic capture');
    return;
  }
  line('invocations', String(archive.invocations));
  line('archived', `${countOf(archive.artifactRecords, 'record')} of ${countOf(archive.files, 'distinct file')}, ${countOf(archive.chunks, 'chunk')}`);
  // A ratio only where there is one: an archive of nothing printed "(-x)".
  const ratio = archive.storedBytes > 0 ? ` (${(archive.logicalBytes / archive.storedBytes).toFixed(1)}x)` : '';
  line('size', `${formatBytes(archive.logicalBytes)} of artifacts in ${formatBytes(archive.storedBytes)} stored${ratio}`);
  if (!store) return;
  line('store', config.databaseFile);
  if ('busy' in store) {
    line('', store.busy);
    return;
  }
  const dedup = store.nodeVersions > 0 ? ` (${(store.nodeRows / store.nodeVersions).toFixed(1)}x)` : '';
  line('node versions', `${countOf(store.nodeVersions, 'distinct definition')} for ${countOf(store.nodeRows, 'node row')}${dedup}`);
  if (store.problems > 0)
    line(
      'problems',
      `${countOf(store.problems, 'artifact or record', 'artifacts or records')} could not be read into rows: dbtattic query "select * from ingest_problem"`,
    );
  if (store.damaged.length > 0) line('damaged', `${store.damaged.join(', ')}: repair with dbtattic verify --repair, or capture the originals again`);
  const counts = Object.entries(store.rows)
    .filter(([table]) => table !== 'store_meta')
    .map(([table, rows]) => `${table} ${rows}`);
  // One table per entry, packed into lines the width of the terminal (80 off one), under the key.
  packed(counts, (io.columns || 80) - KEY_WIDTH).forEach((text, i) => line(i === 0 ? 'rows' : '', text));
}

const KEY_WIDTH = 16;

function packed(entries: string[], width: number): string[] {
  const lines: string[] = [];
  for (const entry of entries) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last]!.length + 2 + entry.length + 1 <= width) lines[last] += `, ${entry}`;
    else lines.push(entry);
  }
  return lines.map((text, i) => (i < lines.length - 1 ? `${text},` : text));
}

function describeCatalog(value: unknown): string {
  if (!value || typeof value !== 'object') return 'none';
  const c = value as Record<string, unknown>;
  return [c.provider, c.uri ?? c.endpoint, c.repository, c.ref ?? c.branch, c.variable].filter((part) => typeof part === 'string').join(' ');
}
