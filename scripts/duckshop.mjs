// examples/duckshop made ready for a real dbt: a copy that is a git repository of one commit, the
// environment dbt and the loader run in, and its sources loaded. Shared by `npm run demo` and the
// tests of dbt's own behaviour (test/helpers/real-dbt.ts).
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DUCKSHOP = path.join(ROOT, 'examples', 'duckshop');

/** The bin directory of the pinned dbt venv (made on first use), or the reason there is none. */
export function dbtVenv({ quiet = true } = {}) {
  const made = spawnSync('bash', [path.join(ROOT, 'scripts', 'dbt-venv.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', quiet ? 'pipe' : 'inherit'] });
  if (made.status === 0) return { bin: made.stdout.trim() };
  const said = (made.stderr ?? '').trim().split('\n').at(-1);
  return { bin: null, reason: said || made.error?.message || `scripts/dbt-venv.sh exited ${made.status}` };
}

/**
 * What dbt and the loader run with: the venv first on PATH (so `dbtattic run -- dbt` and the
 * shell wrapper find this dbt), the project's own profiles, the warehouse outside target/ (so
 * target/ holds only what dbt writes there), and nothing sent anywhere.
 */
export function dbtEnv(project, bin) {
  return {
    PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
    DBT_PROFILES_DIR: project,
    DBTATTIC_EXAMPLE_DB: path.join(project, 'warehouse.duckdb'),
    DO_NOT_TRACK: '1',
    DBT_SEND_ANONYMOUS_USAGE_STATS: 'false',
    DBT_USE_COLORS: 'false',
  };
}

/** A copy of examples/duckshop at `dir` (without target/, logs/), a git repository of one commit. */
export function copyDuckshop(dir) {
  cpSync(DUCKSHOP, dir, { recursive: true, filter: (source) => !/[\\/](target|logs|dbt_packages)$/.test(source) });
  commitAll(dir, 'duckshop');
  return dir;
}

export function commitAll(project, message) {
  const git = (...args) =>
    execFileSync('git', ['-c', 'user.name=duckshop', '-c', 'user.email=duckshop@dbtattic.invalid', ...args], { cwd: project, stdio: 'ignore' });
  // A repository of its own, even inside a clone of ours (in tmp, it never is).
  if (spawnSync('git', ['rev-parse', '--show-toplevel'], { cwd: project, encoding: 'utf8' }).stdout?.trim() !== project) git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '--allow-empty', '-m', message);
}

/** Runs the project's loader (raw.* tables, with `loaded_at`) with the venv's Python. */
export function loadSources(project, bin, args = []) {
  execFileSync(path.join(bin, 'python'), ['load_sources.py', ...args], { cwd: project, env: { ...process.env, ...dbtEnv(project, bin) }, stdio: 'pipe' });
}
