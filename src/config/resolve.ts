import path from 'node:path';
import { AtticError } from '../errors.js';
import { ARTIFACT_TYPES, isArtifactType, nearestName, type ArtifactType } from '../vocab/index.js';
import { asMapping, ATTIC_CONFIG_FILE, findProjectDir, readDbtProject, readYamlMapping } from './dbt-project.js';
import { isRemoteUri, resolveRemote, type RemoteStore } from './remote.js';
import type { Resolved, Source } from './resolved.js';

export type { Resolved, Source } from './resolved.js';

export interface ConfigInput {
  flags: {
    store?: string;
    projectDir?: string;
    targetPath?: string;
    branch?: string;
    offline?: boolean;
    remote?: string;
    exportTo?: string;
    exportProject?: string;
  };
  env: Record<string, string | undefined>;
  cwd: string;
}

export interface AtticConfig {
  /** Where the command was run: what a relative path the user typed is relative to. */
  cwd: string;
  projectDir: Resolved<string> | null;
  projectName: string | null;
  store: Resolved<string>;
  targetDir: Resolved<string> | null;
  /** Where dbt writes dbt.log: --log-path, DBT_LOG_PATH, log-path of dbt_project.yml, else logs/. */
  logDir: Resolved<string> | null;
  /** What capture keeps besides artifacts (`capture:` in dbtattic.yml): compiled/run SQL, dbt's log. */
  capture: { sql: Resolved<boolean>; logs: Resolved<boolean> };
  artifacts: Resolved<ArtifactType[]>;
  branch: Resolved<string> | null;
  /** The raw `catalog:` mapping of dbtattic.yml, parsed by the capture layer. */
  catalog: Resolved<unknown> | null;
  /** The raw `retention:` mapping of dbtattic.yml (the default keep policy), parsed by the retention layer. */
  retention: Resolved<unknown> | null;
  /** Reading commands use the local store as it is, without catching up first. */
  offline: boolean;
  /** Set when the store is in object storage (s3://…). */
  remote: RemoteStore | null;
  /** The other store of `push` and `pull`: their argument, else `remote:` in dbtattic.yml. */
  pushRemote: OtherStore | null;
  /** Where `export` writes the Parquet dataset (--to, else `export: {to:}`), and the project it files runs under. */
  export: ExportSettings;
  archiveLocation: string;
  /** Where derived, local things live: the store directory, or the cache of a remote store. */
  localDir: string;
  databaseFile: string;
}

const DEFAULT_STORE_DIR = '.dbtattic';

/** What dbtattic.yml may hold. Anything else is a typo to point out, never a setting to ignore. */
export const ATTIC_CONFIG_KEYS: readonly string[] = ['store', 'artifacts', 'capture', 'branch', 'catalog', 's3', 'cache', 'remote', 'retention', 'export'];

function refuseUnknownKeys(attic: Record<string, unknown>): void {
  const unknown = Object.keys(attic).find((key) => !ATTIC_CONFIG_KEYS.includes(key));
  if (unknown === undefined) return;
  const nearest = nearestName(unknown, ATTIC_CONFIG_KEYS);
  throw new AtticError(
    'config',
    `'${unknown}' in ${ATTIC_CONFIG_FILE} is not a dbtattic setting${nearest ? `; did you mean '${nearest}'?` : '.'} Its settings are: ${ATTIC_CONFIG_KEYS.join(', ')}.`,
    { key: unknown },
  );
}

/** Keys whose value is a path, a name or a URI: a number or a list there was taken as not set. */
const TEXT_KEYS = ['store', 'branch', 'cache', 'remote'];
/** Keys holding settings of their own. */
const MAPPING_KEYS = ['s3', 'capture', 'catalog', 'retention', 'export'];

function refuseWrongTypes(settings: Record<string, unknown>, where: string): void {
  for (const [key, value] of Object.entries(settings)) {
    if (value === null || value === undefined) continue;
    if (TEXT_KEYS.includes(key) && (typeof value !== 'string' || value.trim() === '')) {
      throw new AtticError('config', `'${key}' in ${where} must be a non-empty text (got ${JSON.stringify(value)}).`, { key });
    }
    if (MAPPING_KEYS.includes(key) && (typeof value !== 'object' || Array.isArray(value))) {
      throw new AtticError('config', `'${key}' in ${where} must be a mapping of settings (got ${JSON.stringify(value)}).`, { key });
    }
  }
}

/** One function decides every value, highest precedence first; tests pass env and cwd in. */
export function resolveConfig(input: ConfigInput): AtticConfig {
  const projectDir = resolveProjectDir(input);
  const project = projectDir ? readDbtProject(projectDir.value) : null;
  const attic = projectDir ? (readYamlMapping(path.join(projectDir.value, ATTIC_CONFIG_FILE)) ?? {}) : {};
  refuseUnknownKeys(attic);
  refuseWrongTypes(attic, ATTIC_CONFIG_FILE);
  refuseWrongTypes(project?.atticVars ?? {}, 'vars: dbtattic: of dbt_project.yml');
  const store = resolveStore(input, projectDir?.value ?? null, attic, project?.atticVars ?? {});
  const remote = isRemoteUri(store.value) ? resolveRemote(store.value, attic, input.env, input.cwd, projectDir?.value ?? null) : null;
  const localDir = remote ? remote.cacheDir.value : store.value;
  return {
    cwd: input.cwd,
    projectDir,
    projectName: project?.name ?? null,
    store,
    targetDir: projectDir ? resolveTargetDir(input, projectDir.value, project?.targetPath ?? null) : null,
    logDir: projectDir ? resolveLogDir(input, projectDir.value, project?.logPath ?? null) : null,
    capture: resolveCaptureSwitches(attic.capture),
    artifacts: resolveArtifacts(attic.artifacts),
    branch: firstOf<string>([
      [input.flags.branch, 'flag'],
      [input.env.DBTATTIC_BRANCH, 'env:DBTATTIC_BRANCH'],
      [typeof attic.branch === 'string' ? attic.branch : undefined, ATTIC_CONFIG_FILE],
    ]),
    catalog: attic.catalog === undefined ? null : { value: attic.catalog, source: ATTIC_CONFIG_FILE },
    retention: attic.retention === undefined ? null : { value: attic.retention, source: ATTIC_CONFIG_FILE },
    offline: input.flags.offline === true || input.env.DBTATTIC_OFFLINE === '1',
    remote,
    pushRemote: resolvePushRemote(input, attic, projectDir?.value ?? null),
    export: resolveExport(input, attic, projectDir?.value ?? null),
    archiveLocation: remote ? `${remote.uri}/archive` : path.join(store.value, 'archive'),
    localDir,
    databaseFile: path.join(localDir, 'store.duckdb'),
  };
}

function resolveProjectDir(input: ConfigInput): Resolved<string> | null {
  const explicit = firstOf<string>([
    [input.flags.projectDir, 'flag'],
    [input.env.DBT_PROJECT_DIR, 'env:DBT_PROJECT_DIR'],
  ]);
  if (explicit) {
    const dir = path.resolve(input.cwd, explicit.value);
    if (!findProjectDir(dir) || findProjectDir(dir) !== dir) {
      throw new AtticError('project-not-found', `No dbt_project.yml in ${dir} (from ${explicit.source}). Point --project-dir at a dbt project.`);
    }
    return { value: dir, source: explicit.source };
  }
  const found = findProjectDir(input.cwd);
  return found ? { value: found, source: 'cwd' } : null;
}

function resolveStore(input: ConfigInput, projectDir: string | null, attic: Record<string, unknown>, vars: Record<string, unknown>): Resolved<string> {
  const fromCwd = firstOf<string>([
    [input.flags.store, 'flag'],
    [input.env.DBTATTIC_STORE, 'env:DBTATTIC_STORE'],
  ]);
  if (fromCwd) return { value: resolveStoreValue(input.cwd, fromCwd.value), source: fromCwd.source };
  if (!projectDir) {
    throw new AtticError('project-not-found', `No dbt_project.yml in ${input.cwd} or above it. Run inside a dbt project, or pass --project-dir or --store.`);
  }
  const fromProject = firstOf<string>([
    [stringValue(attic.store), ATTIC_CONFIG_FILE],
    [stringValue(vars.store), 'dbt_project.yml'],
  ]) ?? { value: DEFAULT_STORE_DIR, source: 'default' as const };
  return { value: resolveStoreValue(projectDir, fromProject.value), source: fromProject.source };
}

export interface OtherStore extends Resolved<string> {
  archiveLocation: string;
  remote: RemoteStore | null;
}

function resolvePushRemote(input: ConfigInput, attic: Record<string, unknown>, projectDir: string | null): OtherStore | null {
  const chosen = firstOf<string>([
    [input.flags.remote, 'flag'],
    [stringValue(attic.remote), ATTIC_CONFIG_FILE],
  ]);
  if (!chosen) return null;
  const value = resolveStoreValue(chosen.source === 'flag' ? input.cwd : (projectDir ?? input.cwd), chosen.value);
  // Its own default cache directory: `cache:` and DBTATTIC_CACHE name this project's store's.
  const remote = isRemoteUri(value) ? resolveRemote(value, { s3: attic.s3 }, { ...input.env, DBTATTIC_CACHE: undefined }, input.cwd, projectDir) : null;
  return { ...chosen, value, archiveLocation: remote ? `${remote.uri}/archive` : path.join(value, 'archive'), remote };
}

export interface ExportSettings {
  to: OtherStore | null;
  project: Resolved<string> | null;
}

/** `export: {to: DIR|s3://bucket/prefix, project: NAME}`; --to and --project win. */
function resolveExport(input: ConfigInput, attic: Record<string, unknown>, projectDir: string | null): ExportSettings {
  const raw = asMapping(attic.export ?? {});
  const unknown = Object.keys(raw).filter((k) => k !== 'to' && k !== 'project');
  if (unknown.length > 0) throw new AtticError('config', `'export' in ${ATTIC_CONFIG_FILE} knows only to and project (unknown: ${unknown.join(', ')}).`);
  for (const key of ['to', 'project']) {
    const value = raw[key];
    if (value !== undefined && value !== null && (typeof value !== 'string' || value.trim() === '')) {
      throw new AtticError('config', `'export.${key}' in ${ATTIC_CONFIG_FILE} must be a non-empty text (got ${JSON.stringify(value)}).`, {
        key: `export.${key}`,
      });
    }
  }
  const to = firstOf<string>([
    [input.flags.exportTo, 'flag'],
    [stringValue(raw.to), ATTIC_CONFIG_FILE],
  ]);
  const project = firstOf<string>([
    [input.flags.exportProject, 'flag'],
    [stringValue(raw.project), ATTIC_CONFIG_FILE],
  ]);
  if (!to) return { to: null, project };
  const value = resolveStoreValue(to.source === 'flag' ? input.cwd : (projectDir ?? input.cwd), to.value);
  const remote = isRemoteUri(value) ? resolveRemote(value, { s3: attic.s3 }, input.env, input.cwd, projectDir) : null;
  return { to: { ...to, value, archiveLocation: remote ? remote.uri : value, remote }, project };
}

/** A directory relative to `base`, or a URI (s3://…) as it is. */
function resolveStoreValue(base: string, value: string): string {
  return isRemoteUri(value) ? value : path.resolve(base, value);
}

function resolveTargetDir(input: ConfigInput, projectDir: string, fromProject: string | null): Resolved<string> {
  const chosen = firstOf<string>([
    [input.flags.targetPath, 'flag'],
    [input.env.DBT_TARGET_PATH, 'env:DBT_TARGET_PATH'],
    [fromProject ?? undefined, 'dbt_project.yml'],
  ]) ?? { value: 'target', source: 'default' as const };
  // dbt resolves a relative --target-path against the project, not the shell's directory.
  return { value: path.resolve(projectDir, chosen.value), source: chosen.source };
}

function resolveLogDir(input: ConfigInput, projectDir: string, fromProject: string | null): Resolved<string> {
  const chosen = firstOf<string>([
    [input.env.DBT_LOG_PATH, 'env:DBT_LOG_PATH'],
    [fromProject ?? undefined, 'dbt_project.yml'],
  ]) ?? { value: 'logs', source: 'default' as const };
  return { value: path.resolve(projectDir, chosen.value), source: chosen.source };
}

/** `capture: {sql: false}` keeps compiled and run SQL out of the archive; `logs: false` keeps dbt.log out. */
function resolveCaptureSwitches(raw: unknown): AtticConfig['capture'] {
  const on = (key: 'sql' | 'logs'): Resolved<boolean> => {
    if (raw === undefined || raw === null) return { value: true, source: 'default' };
    const value = asMapping(raw)[key];
    if (typeof raw !== 'object' || Array.isArray(raw) || (value !== undefined && typeof value !== 'boolean')) {
      throw new AtticError('config', `'capture' in ${ATTIC_CONFIG_FILE} must be a mapping like {sql: true, logs: false}.`);
    }
    return value === undefined ? { value: true, source: 'default' } : { value, source: ATTIC_CONFIG_FILE };
  };
  const unknown = raw && typeof raw === 'object' ? Object.keys(raw).filter((k) => k !== 'sql' && k !== 'logs') : [];
  if (unknown.length > 0) throw new AtticError('config', `'capture' in ${ATTIC_CONFIG_FILE} knows only sql and logs (unknown: ${unknown.join(', ')}).`);
  return { sql: on('sql'), logs: on('logs') };
}

function resolveArtifacts(raw: unknown): Resolved<ArtifactType[]> {
  if (raw === undefined) return { value: [...ARTIFACT_TYPES], source: 'default' };
  const names = Array.isArray(raw) ? raw.map(String).map((n) => n.replace(/\.json$/, '')) : [];
  const unknown = names.filter((n) => !isArtifactType(n));
  if (!Array.isArray(raw) || unknown.length > 0 || names.length === 0) {
    throw new AtticError(
      'config',
      `'artifacts' in ${ATTIC_CONFIG_FILE} must list some of: ${ARTIFACT_TYPES.join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}.`,
    );
  }
  return { value: names.filter(isArtifactType), source: ATTIC_CONFIG_FILE };
}

function firstOf<T>(candidates: [T | undefined, Source][]): Resolved<T> | null {
  for (const [value, source] of candidates) {
    if (value !== undefined && value !== '') return { value, source };
  }
  return null;
}

function stringValue(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export { asMapping };
