import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The stand-in for dbt; see the header of fake-dbt.mjs for what it does and the env it reads. */
export const FAKE_DBT_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fake-dbt.mjs');

export type FakeDbt = {
  /** A temp directory holding `dbt`, a symlink to the script (which git keeps executable). */
  binDir: string;
  /** process.env with binDir first on PATH, without inherited dbt/fake settings, plus `extra`. */
  env(extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  remove(): Promise<void>;
};

/** Variables that would change what the fake does if the developer's shell happened to set them. */
const LEAKY = /^(DBT_TARGET_PATH|DBT_PROJECT_DIR|FAKE_DBT_.*)$/;

export async function installFakeDbt(): Promise<FakeDbt> {
  const binDir = await mkdtemp(path.join(tmpdir(), 'dbtattic-fake-dbt-'));
  await symlink(FAKE_DBT_SCRIPT, path.join(binDir, 'dbt'));
  return {
    binDir,
    env(extra = {}) {
      const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !LEAKY.test(name)));
      return { ...base, PATH: `${binDir}${path.delimiter}${process.env.PATH ?? ''}`, ...extra };
    },
    remove: () => rm(binDir, { recursive: true, force: true }),
  };
}
