import { existsSync } from 'node:fs';
import type { ConfigView, InfoAnswer, RemoteView, RetentionView, StoreView } from '../answers/index.js';
import { openArchive, summarizeArchive, type Backend } from '../archive/index.js';
import { parseCatalogConfig } from '../capture/catalog/index.js';
import type { AtticConfig } from '../config/resolve.js';
import { isAtticError } from '../errors.js';
import { describePolicy, evaluatePolicy, hasConfiguredPolicy, predictShrink, resolvePolicy } from '../retention/index.js';
import type { Answered, ProgressFn, ReadNotice } from './read.js';

/** `info --json` but its version, which is the front end's to give. */
export type InfoFacts = Omit<InfoAnswer, 'version'>;

/**
 * The resolved configuration and what the archive and the store hold. It always answers: no
 * archive yet is "none yet", a store held by another process is said, not fatal.
 */
export async function infoOf(config: AtticConfig, onProgress?: ProgressFn): Promise<Answered<InfoFacts>> {
  const backend = config.remote || existsSync(config.archiveLocation) ? await openIfPresent(config) : null;
  const archive = backend ? await summarizeArchive(backend) : null;
  const read = archive ? await storeFigures(config, onProgress) : { value: null, notice: null };
  const remote = config.remote && backend ? remoteView(config, backend) : null;
  const retention = backend ? await retentionView(config, backend) : null;
  return { value: { config: configView(config), remote, archive, store: read.value, retention }, notice: read.notice };
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

/** A bucket without an archive yet is "none yet", like a missing directory. */
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

/** Store figures after catching up; a busy store is reported, not fatal. */
async function storeFigures(config: AtticConfig, onProgress?: ProgressFn): Promise<{ value: StoreView; notice: ReadNotice | null }> {
  const [{ readCurrent }, { readStoreFigures }] = await Promise.all([import('./read.js'), import('../store/index.js')]);
  try {
    return await readCurrent(config, (db) => readStoreFigures(db.connection), onProgress);
  } catch (error) {
    if (isAtticError(error) && error.code === 'store-busy') return { value: { busy: error.message }, notice: null };
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
