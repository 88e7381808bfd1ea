import { existsSync } from 'node:fs';
import path from 'node:path';
import { copyDuckshop, dbtEnv as duckshopEnv, loadSources as loadDuckshopSources } from '../../scripts/duckshop.mjs';

/**
 * The real dbt of issue 43 (dbt-core and dbt-duckdb pinned in requirements-dbt.txt), for the
 * tests whose subject is dbt's own behaviour: the bin directory in DBTATTIC_DBT_BIN, which the
 * suite's global setup fills (test/support/real-dbt-venv.ts). Absent, those tests are skipped
 * saying why; with DBTATTIC_REQUIRE_DBT=1 (CI), absent is a failure, as S3 and the browser are.
 */
export const dbtBin: string | null = process.env.DBTATTIC_DBT_BIN ?? null;
export const hasRealDbt = dbtBin !== null && existsSync(path.join(dbtBin, 'dbt'));

if (!hasRealDbt && process.env.DBTATTIC_REQUIRE_DBT === '1') {
  throw new Error(
    `DBTATTIC_REQUIRE_DBT=1 but no real dbt was found (${process.env.DBTATTIC_NO_DBT_REASON ?? 'DBTATTIC_DBT_BIN names no dbt'}): run scripts/dbt-venv.sh.`,
  );
}
export const NO_DBT_REASON = `no real dbt (${process.env.DBTATTIC_NO_DBT_REASON ?? 'DBTATTIC_DBT_BIN is not set'}): scripts/dbt-venv.sh makes one from PyPI`;

/** The environment dbt and the loader run in (scripts/duckshop.mjs). */
export function dbtEnv(project: string, extra: Record<string, string> = {}): Record<string, string> {
  return { ...duckshopEnv(project, dbtBin!), ...extra };
}

/** A copy of examples/duckshop at `dir`, a git repository of one commit, its sources loaded. */
export function duckshopAt(dir: string): string {
  copyDuckshop(dir);
  loadSources(dir);
  return dir;
}

export function loadSources(project: string, args: string[] = []): void {
  loadDuckshopSources(project, dbtBin!, args);
}
