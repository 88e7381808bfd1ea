import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The smoke suite's package: the built tree packed (or DBTATTIC_SMOKE_TARBALL, packed once by CI
 * for every Node line) and installed globally into a prefix of this run, with the npm and Node
 * first on PATH, as a user on that Node line installs it. The tests read where from the
 * environment (installed.ts).
 */
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export default function setup(): void {
  if (!existsSync(path.join(REPO, 'dist', 'bundle', 'main.mjs'))) throw new Error('the smoke suite installs the built package: run npm run build first');
  const work = path.join(os.tmpdir(), 'smoke-package');
  mkdirSync(work, { recursive: true });
  const tarball = process.env.DBTATTIC_SMOKE_TARBALL || pack(work);
  const prefix = path.join(work, 'prefix');
  npm(['install', '--global', '--prefix', prefix, '--prefer-offline', tarball], work);
  process.env.DBTATTIC_SMOKE_TARBALL = tarball;
  process.env.DBTATTIC_SMOKE_PREFIX = prefix;
}

function pack(work: string): string {
  // --ignore-scripts: dist/ is built; prepack would build it again.
  const [entry] = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], REPO)) as Array<{ filename: string }>;
  return path.join(work, entry!.filename);
}

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: npmEnv() });
}

/** The Node running this suite runs npm, and the package it installs. */
export function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', NO_COLOR: '1' };
  env.PATH = `${path.dirname(process.execPath)}${path.delimiter}${env.PATH ?? ''}`;
  return env;
}
