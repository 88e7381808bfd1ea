import path from 'node:path';
import type { AtticConfig } from '../config/resolve.js';
import { objectMembers, parseMember } from '../json/scan.js';
import { parseCatalogConfig, readCatalogSnapshot, type CatalogSnapshot, type CatalogTable } from './catalog/index.js';
import { readDbtProject } from '../config/dbt-project.js';
import { resolveDbtTarget, type DbtTarget } from './dbt-target.js';
import { readGitContext, type GitContext } from './git-context.js';
import { readRegularFile } from './regular-file.js';

/**
 * The code and data a dbt command ran against. `run` takes it just before starting dbt; a bare
 * `capture` can only take it when it runs, and says so in `taken`, since the tree or the
 * catalog may have moved since dbt ran.
 */
export interface RunContext {
  [key: string]: unknown;
  taken: 'run-start' | 'capture';
  taken_at: string;
  git: GitContext;
  catalog: CatalogSnapshot | null;
  /** The dbt target as dbt would resolve it, for artifacts that do not name theirs. */
  target: DbtTarget | null;
}

/** `ranAt`: when dbt ran, for a context taken after it (a capture): git's HEAD is read as it was then. */
export async function takeRunContext(
  config: AtticConfig,
  env: Record<string, string | undefined>,
  taken: RunContext['taken'],
  argv: readonly string[] = [],
  ranAt: Date | null = null,
): Promise<RunContext> {
  const cwd = config.projectDir?.value ?? config.cwd;
  const [git, catalog] = await Promise.all([readGitContext(cwd, env, { exclude: outputPaths(config, cwd), asOf: ranAt }), readCatalog(config, env)]);
  const projectDir = config.projectDir?.value ?? null;
  const target = resolveDbtTarget({ argv, env, projectDir, profile: projectDir ? readDbtProject(projectDir).profile : null });
  return { taken, taken_at: new Date().toISOString(), git, catalog, target };
}

/**
 * What dbt and dbtattic write, where it sits inside the project: target/, logs/ and the store.
 * `run` reads git beside dbt's start, so logs/ dbt makes then must not count as a change.
 */
function outputPaths(config: AtticConfig, cwd: string): string[] {
  const inside = (dir: string): string | null => {
    const relative = path.relative(cwd, dir);
    return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : null;
  };
  return [config.targetDir?.value, config.logDir?.value, config.store.value].flatMap((dir) =>
    dir ? [inside(dir)].filter((p): p is string => p !== null) : [],
  );
}

async function readCatalog(config: AtticConfig, env: Record<string, string | undefined>): Promise<CatalogSnapshot | null> {
  if (!config.catalog) return null;
  let catalogConfig: ReturnType<typeof parseCatalogConfig>;
  try {
    catalogConfig = parseCatalogConfig(config.catalog.value);
  } catch (error) {
    // A bad `catalog:` must not stop dbt from running; `dbtattic info` reports it loudly.
    return { provider: 'invalid', status: 'unknown', snapshotId: null, atomic: false, reason: error instanceof Error ? error.message : String(error) };
  }
  if (!catalogConfig) return null;
  const tables = catalogConfig.provider === 'iceberg-rest' && config.targetDir ? await sourceTables(path.join(config.targetDir.value, 'manifest.json')) : [];
  return readCatalogSnapshot(catalogConfig, { env, tables });
}

/** The tables the project reads: its sources, as database.schema.identifier of the manifest. */
async function sourceTables(manifestFile: string): Promise<CatalogTable[]> {
  let bytes: Buffer;
  try {
    bytes = await readRegularFile(manifestFile);
  } catch {
    return [];
  }
  try {
    for (const member of objectMembers(bytes)) {
      if (member.key !== 'sources') continue;
      const sources = parseMember(bytes, member);
      return Object.values(sources && typeof sources === 'object' ? sources : {}).flatMap(tableOf);
    }
  } catch {
    // An unreadable manifest is capture's to report; the snapshot just covers no tables.
  }
  return [];
}

function tableOf(source: unknown): CatalogTable[] {
  if (!source || typeof source !== 'object') return [];
  const { database, schema, identifier, name } = source as Record<string, unknown>;
  const table = typeof identifier === 'string' ? identifier : typeof name === 'string' ? name : null;
  if (!table || typeof schema !== 'string') return [];
  return [{ namespace: typeof database === 'string' && database ? [database, schema] : [schema], name: table }];
}
