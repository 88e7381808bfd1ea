import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The real dbt of issue 43 (dbt-core and dbt-duckdb pinned in requirements-dbt.txt), for the
 * tests whose subject is dbt's own behaviour. Found at DBTATTIC_DBT_BIN, else in the venv
 * scripts/dbt-venv.sh makes (named by the requirements' hash, complete once its marker holds
 * that hash). Absent, those tests are skipped saying how to get it; with DBTATTIC_REQUIRE_DBT=1
 * (CI), absent is a failure, as S3 and the browser are there.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const DUCKSHOP = path.join(ROOT, 'examples', 'duckshop');

function venvBin(): string | null {
  if (process.env.DBTATTIC_DBT_BIN) return process.env.DBTATTIC_DBT_BIN;
  const digest = createHash('sha256').update(readFileSync(path.join(ROOT, 'requirements-dbt.txt'))).digest('hex');
  const venv = process.env.DBTATTIC_DBT_VENV ?? path.join(os.homedir(), '.cache', 'dbtattic-dbt', `venv-${digest.slice(0, 12)}`);
  const marker = path.join(venv, '.dbtattic-venv-complete');
  return existsSync(marker) && readFileSync(marker, 'utf8').trim() === digest ? path.join(venv, 'bin') : null;
}

/** The bin directory holding `dbt` and the venv's `python`, or null. */
export const dbtBin: string | null = venvBin();
export const hasRealDbt = dbtBin !== null && existsSync(path.join(dbtBin, 'dbt'));

if (!hasRealDbt && process.env.DBTATTIC_REQUIRE_DBT === '1') {
  throw new Error('DBTATTIC_REQUIRE_DBT=1 but no real dbt was found: run scripts/dbt-venv.sh (or set DBTATTIC_DBT_BIN to a bin directory holding dbt).');
}
export const NO_DBT_REASON = 'real dbt not installed: run scripts/dbt-venv.sh once (PyPI), or set DBTATTIC_DBT_BIN';

/**
 * The environment dbt and the loader run in: the venv first on PATH (so `dbtattic run -- dbt` and
 * the shell wrapper find this dbt), the project's own profiles, the warehouse outside target/,
 * and nothing sent anywhere.
 */
export function dbtEnv(project: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: `${dbtBin}${path.delimiter}${process.env.PATH ?? ''}`,
    DBT_PROFILES_DIR: project,
    DBTATTIC_EXAMPLE_DB: path.join(project, 'warehouse.duckdb'),
    DO_NOT_TRACK: '1',
    DBT_SEND_ANONYMOUS_USAGE_STATS: 'false',
    DBT_USE_COLORS: 'false',
    ...extra,
  };
}

/** A copy of examples/duckshop at `dir`, a git repository of one commit, its sources loaded. */
export function duckshopAt(dir: string): string {
  cpSync(DUCKSHOP, dir, { recursive: true, filter: (source) => !/[\\/](target|logs|dbt_packages)$/.test(source) });
  const git = (...args: string[]): void => void execFileSync('git', args, { cwd: dir, stdio: 'ignore', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'duckshop');
  loadSources(dir);
  return dir;
}

export function loadSources(project: string, args: string[] = []): void {
  execFileSync(path.join(dbtBin!, 'python'), ['load_sources.py', ...args], { cwd: project, env: { ...process.env, ...dbtEnv(project) }, stdio: 'pipe' });
}
