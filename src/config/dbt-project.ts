import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { AtticError } from '../errors.js';

export const DBT_PROJECT_FILE = 'dbt_project.yml';
export const ATTIC_CONFIG_FILE = 'dbtattic.yml';

/** The few keys of dbt_project.yml that dbtattic reads. */
export interface DbtProject {
  name: string | null;
  targetPath: string | null;
  /** `profile:`: which entry of profiles.yml the project connects with. */
  profile: string | null;
  /** `log-path:` (deprecated by dbt 1.5 in favour of the flag and DBT_LOG_PATH, still read). */
  logPath: string | null;
  /** `vars.dbtattic` */
  atticVars: Record<string, unknown>;
}

/** Walks up from `start` to the nearest directory holding dbt_project.yml. */
export function findProjectDir(start: string): string | null {
  for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, DBT_PROJECT_FILE))) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}

export function readDbtProject(projectDir: string): DbtProject {
  const raw = readYamlMapping(path.join(projectDir, DBT_PROJECT_FILE)) ?? {};
  const vars = asMapping(raw.vars);
  return {
    name: typeof raw.name === 'string' ? raw.name : null,
    targetPath: typeof raw['target-path'] === 'string' ? raw['target-path'] : null,
    profile: typeof raw.profile === 'string' ? raw.profile : null,
    logPath: typeof raw['log-path'] === 'string' ? raw['log-path'] : null,
    atticVars: asMapping(vars.dbtattic),
  };
}

/** A YAML file holding a mapping; null when the file does not exist. */
export function readYamlMapping(file: string): Record<string, unknown> | null {
  if (!existsSync(file)) return null;
  let parsed: unknown;
  const text = readConfigText(file);
  try {
    parsed = yaml.load(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new AtticError('config', `${file} is not valid YAML (${reason}). Fix the file and try again.`);
  }
  if (parsed === undefined || parsed === null) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new AtticError('config', `${file} must hold a mapping of keys to values.`);
  }
  return parsed as Record<string, unknown>;
}

/** Far above any real project's: a config file this large is a mistake (a link to /dev/zero). */
const MAX_CONFIG_BYTES = 8 * 1024 * 1024;

/** A config file's text; a FIFO or a device is refused before it is opened, as it could block or never end. */
function readConfigText(file: string): string {
  const stats = statSync(file);
  if (!stats.isFile()) throw new AtticError('config', `${file} is not a regular file (a device, a FIFO or a directory). Make it a YAML file.`);
  if (stats.size > MAX_CONFIG_BYTES)
    throw new AtticError('config', `${file} is ${stats.size} bytes, more than a config file holds (${MAX_CONFIG_BYTES}). Is it the right file?`);
  return readFileSync(file, 'utf8');
}

export function asMapping(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
