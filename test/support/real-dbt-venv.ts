import { dbtVenv } from '../../scripts/duckshop.mjs';

/**
 * The real dbt the tests of dbt's own behaviour run (test/helpers/real-dbt.ts): the venv of
 * requirements-dbt.txt, made on the first run where Python 3.10+ and PyPI are (about 20 s, then
 * cached by the pins' hash), and handed to the workers as DBTATTIC_DBT_BIN. CI makes it before
 * and sets DBTATTIC_DBT_BIN itself. Where it cannot be made, those tests are skipped, saying why.
 */
export default function setup(): void {
  if (process.env.DBTATTIC_DBT_BIN) return;
  const venv = dbtVenv({ quiet: true });
  if (venv.bin) process.env.DBTATTIC_DBT_BIN = venv.bin;
  else process.env.DBTATTIC_NO_DBT_REASON = venv.reason;
}
