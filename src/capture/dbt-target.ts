import { existsSync } from 'node:fs';
import path from 'node:path';
import { readYamlMapping } from '../config/dbt-project.js';
import { dbtFlag } from './dbt-flags.js';

/**
 * The dbt target a command ran against, when its artifacts do not say (dbt records `target` in
 * run_results' args only when `--target` was typed), resolved as dbt resolves it: the command
 * line, then DBT_TARGET, then the `target:` of the project's profile in profiles.yml.
 */
export interface DbtTarget {
  name: string;
  /** `command line`, `env:DBT_TARGET`, or the profiles.yml it was read from. */
  source: string;
}

export interface TargetInput {
  /** The wrapped command line (`dbtattic run -- dbt …`); empty for a bare capture. */
  argv: readonly string[];
  env: Record<string, string | undefined>;
  projectDir: string | null;
  /** `profile:` of dbt_project.yml. */
  profile: string | null;
}

export function resolveDbtTarget(input: TargetInput): DbtTarget | null {
  const typed = dbtFlag(input.argv, ['--target', '-t']);
  if (typed) return { name: typed, source: 'command line' };
  const fromEnv = input.env.DBT_TARGET?.trim();
  if (fromEnv) return { name: fromEnv, source: 'env:DBT_TARGET' };
  return profileDefaultTarget(input);
}

/** dbt looks for profiles.yml in --profiles-dir, DBT_PROFILES_DIR, the project, then ~/.dbt. */
function profilesFile(input: TargetInput): string | null {
  const explicit = dbtFlag(input.argv, ['--profiles-dir']) ?? input.env.DBT_PROFILES_DIR;
  const home = input.env.HOME ?? input.env.USERPROFILE;
  const dirs = explicit ? [path.resolve(input.projectDir ?? '.', explicit)] : [input.projectDir, home ? path.join(home, '.dbt') : null];
  return dirs.map((dir) => (dir ? path.join(dir, 'profiles.yml') : null)).find((file): file is string => file !== null && existsSync(file)) ?? null;
}

function profileDefaultTarget(input: TargetInput): DbtTarget | null {
  const profile = dbtFlag(input.argv, ['--profile']) ?? input.profile;
  const file = profilesFile(input);
  if (!profile || !file) return null;
  let profiles: Record<string, unknown> | null;
  try {
    profiles = readYamlMapping(file);
  } catch {
    return null; // an unreadable profiles.yml is dbt's to complain about, not ours
  }
  const entry = profiles?.[profile];
  const target = entry && typeof entry === 'object' ? (entry as Record<string, unknown>).target : undefined;
  const name = typeof target === 'string' ? renderEnvVar(target, input.env) : null;
  return name ? { name, source: file } : null;
}

/** `{{ env_var('DBT_TARGET', 'dev') }}`, the one Jinja a profile's target commonly holds; other Jinja is unknown. */
function renderEnvVar(text: string, env: Record<string, string | undefined>): string | null {
  const m = /^\s*\{\{\s*env_var\(\s*['"]([^'"]+)['"]\s*(?:,\s*['"]([^'"]*)['"]\s*)?\)\s*\}\}\s*$/.exec(text);
  if (m) return env[m[1]!] || m[2] || null;
  return text.includes('{{') ? null : text.trim() || null;
}
