import type { ConfigView, InfoAnswer, RemoteView, RetentionView, StoreView } from '../../answers/index.js';
import type { Command } from '@commander-js/extra-typings';
import { defineCommand, type FlagsOf } from '../command-module.js';
import { existsSync } from 'node:fs';
import { openArchive, summarizeArchive, type ArchiveSummary, type Backend } from '../../archive/index.js';
import { parseCatalogConfig } from '../../capture/catalog/index.js';
import type { AtticConfig } from '../../config/resolve.js';
import { isAtticError } from '../../errors.js';
import type { ReadNotice } from '../../store/index.js';
import { loadConfig } from '../context.js';
import { formatBytes } from '../format.js';
import { printJson, type CliIo } from '../io.js';
import { withProgress } from '../progress.js';
import { readNotices } from '../read-notice.js';
import { TOOL_VERSION } from '../version.js';
import { wrappingIo } from '../wrap-lines.js';
import { countOf } from '../../vocab/index.js';
import { describePolicy, evaluatePolicy, hasConfiguredPolicy, predictShrink, resolvePolicy } from '../../retention/index.js';

const options = (command: Command) => command.option('--json', 'print as JSON');

type InfoFlags = FlagsOf<typeof options>;

export default defineCommand(options, info);

async function info(terminal: CliIo, flags: InfoFlags): Promise<number> {
  const io = wrappingIo(terminal);
  const config = loadConfig(io, flags);
  const backend = config.remote || existsSync(config.archiveLocation) ? await openIfPresent(config) : null;
  const archive = backend ? await summarizeArchive(backend) : null;
  const notices = readNotices(io, config);
  const store = archive ? await withProgress(io, 'catching up', (update) => storeFigures(config, update, notices.collect)) : null;
  const remote = config.remote && backend ? remoteView(config, backend) : null;
  const retention = backend ? await retentionView(config, backend) : null;
  if (flags.json) printJson(io, { version: TOOL_VERSION, config: configView(config), remote, archive, store, retention } satisfies InfoAnswer);
  else {
    printHuman(io, config, archive, store, remote);
    if (retention) printRetention(io, retention);
  }
  return notices.exitCode();
}

/** What the configured policy (`retention:`) would free now: forget, then prune after its grace period. */
async function retentionView(config: AtticConfig, backend: Backend): Promise<RetentionView | null> {
  if (!config.retention || !hasConfiguredPolicy(config.retention.value)) return null;
  const { policy } = resolvePolicy({}, config.retention.value);
  const plan = await evaluatePolicy(backend, policy, { now: new Date() });
  const shrink = await predictShrink(backend, plan.forget);
  return {
    policy: describePolicy(policy),
    source: config.retention.source,
    would_forget: plan.forget.length,
    would_keep: plan.keep.length,
    would_free_bytes: shrink.bytes,
  };
}

function printRetention(io: CliIo, view: RetentionView): void {
  io.stdout(`${'retention'.padEnd(16)}${view.policy}${io.color.dim(`  (${view.source})`)}\n`);
  io.stdout(
    `${''.padEnd(16)}would forget ${countOf(view.would_forget, 'invocation')} (keep ${view.would_keep}) and free ${formatBytes(view.would_free_bytes)}\n`,
  );
}

/** info must always answer: a bucket without an archive yet is "none yet", like a missing directory. */
async function openIfPresent(config: AtticConfig): Promise<Backend | null> {
  try {
    return await openArchive(config.archiveLocation, { create: false, remote: config.remote });
  } catch (error) {
    if (isAtticError(error) && error.code === 'not-found') return null;
    throw error;
  }
}

/** The remote store, what its server was probed to support (cached per store), and the local cache. */
function remoteView(config: AtticConfig, backend: Backend): RemoteView {
  return {
    uri: config.remote!.uri,
    capabilities: backend.capabilities,
    branch_heads: backend.capabilities.compareAndSwap ? 'compare-and-swap' : 'head entries (fallback)',
    cache: config.remote!.cacheDir,
  };
}

/** Store figures after catching up; a busy store is reported, not fatal: info must always answer. */
async function storeFigures(
  config: AtticConfig,
  onProgress: (done: number, total: number) => void,
  onNotice: (notice: ReadNotice) => void,
): Promise<StoreView> {
  const { withCurrentStore, readStoreFigures } = await import('../../store/index.js');
  try {
    return await withCurrentStore(config, (db) => readStoreFigures(db.connection), onProgress, onNotice);
  } catch (error) {
    if (isAtticError(error) && error.code === 'store-busy') return { busy: error.message };
    throw error;
  }
}

function configView(config: AtticConfig): ConfigView {
  return {
    project_dir: config.projectDir,
    project_name: config.projectName,
    store: config.store,
    target_dir: config.targetDir,
    artifacts: config.artifacts,
    branch: config.branch,
    catalog: catalogView(config),
    archive: config.archiveLocation,
    database: config.databaseFile,
  };
}

/** The catalog provider as configured (never a credential: config holds only variable names). */
function catalogView(config: AtticConfig): ConfigView['catalog'] {
  if (!config.catalog) return null;
  try {
    return { value: parseCatalogConfig(config.catalog.value) ?? null, source: config.catalog.source };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error), source: config.catalog.source };
  }
}

function printHuman(io: CliIo, config: AtticConfig, archive: ArchiveSummary | null, store: StoreView | null, remote: RemoteView | null): void {
  const line = (key: string, value: string, source?: string): void =>
    io.stdout(`${key.padEnd(KEY_WIDTH)}${value}${source ? io.color.dim(`  (${source})`) : ''}\n`);
  line('version', TOOL_VERSION);
  line('project', config.projectDir?.value ?? '-', config.projectDir?.source);
  line('target', config.targetDir?.value ?? '-', config.targetDir?.source);
  line('store', config.store.value, config.store.source);
  line('artifacts', config.artifacts.value.join(', '), config.artifacts.source);
  line('branch', config.branch?.value ?? '(the git branch)', config.branch?.source);
  const catalog = catalogView(config);
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
