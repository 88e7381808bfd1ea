import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_DIR } from '../helpers/cli.js';
import { syntheticManifest, syntheticRunResults } from '../helpers/synthetic-artifacts.js';

/**
 * The published shape, tried as a user gets it: `npm pack` of the built tree, installed
 * globally into a throwaway prefix and run from there, never from the clone. Dependencies come
 * from npm's cache when `npm ci` already filled it (CI's case), else from the registry.
 */
const pkg = JSON.parse(readFileSync(path.join(REPO_DIR, 'package.json'), 'utf8')) as { name: string; version: string };
const work = mkdtempSync(path.join(os.tmpdir(), 'attic-install-'));
const prefix = path.join(work, 'prefix');
const installedBin = path.join(prefix, 'bin', 'dbtattic');
let tarball = '';

const npm = (args: string[], cwd = work): string =>
  execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: npmEnv() });

/** PATH's first `node` is the one under test (CI runs the suite on several Node lines that way). */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', NO_COLOR: '1' };
  env.PATH = `${path.dirname(process.execPath)}${path.delimiter}${env.PATH ?? ''}`;
  return env;
}

const attic = (args: string[], cwd: string): string =>
  execFileSync(installedBin, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: npmEnv() });

beforeAll(() => {
  // --ignore-scripts: `npm test` built dist/ already; prepack would build it again.
  const packed = npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], REPO_DIR);
  const [entry] = JSON.parse(packed) as Array<{ filename: string }>;
  tarball = path.join(work, entry!.filename);
  npm(['install', '--global', '--prefix', prefix, '--prefer-offline', tarball]);
}, 180_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed tarball', () => {
  it("holds exactly what runs: bin, dist without source maps, schema, the report page's assets, README, LICENSE", () => {
    const files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).trim().split('\n').map((f) => f.replace(/^package\//, ''));
    const tops = new Set(files.map((f) => (f.includes('/') ? `${f.split('/')[0]}/` : f)));
    expect([...tops].sort()).toEqual(['LICENSE', 'README.md', 'assets/', 'bin/', 'dist/', 'package.json', 'schema/']);
    expect(files.filter((f) => f.endsWith('.map') || /(^|\/)(test|fixtures|src)\//.test(f))).toEqual([]);
    expect(files).toContain('dist/cli/main.js');
    // DuckDB's client in one file (scripts/bundle-duckdb.mjs); the next test runs it from the install.
    expect(files).toContain('dist/vendor/duckdb-node-api.cjs');
    // Its code cache (src/store/code-cache.ts), and the CLI bundled (scripts/bundle-cli.mjs), which bin/ loads.
    expect(files).toContain('dist/vendor/duckdb-node-api.cjs.cache');
    expect(files).toContain('dist/bundle/main.mjs');
    expect(files).toContain('assets/report/app.js');
    expect(files.filter((f) => f.startsWith('schema/')).length).toBeGreaterThan(0);
  });

  it('installs a dbtattic whose --version is package.json\'s and whose --help lists the commands', () => {
    expect(attic(['--version'], work).trim()).toBe(pkg.version);
    const help = attic(['--help'], work);
    for (const command of ['capture', 'run', 'state', 'history', 'query', 'verify']) expect(help).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
  });

  it('captures a small project and lists it in history, from the installed copy', () => {
    const project = path.join(work, 'project');
    mkdirSync(path.join(project, 'target'), { recursive: true });
    writeFileSync(path.join(project, 'dbt_project.yml'), "name: installed\nversion: '1.0'\nprofile: installed\n");
    const inv = { invocationId: '0d8c3a52-7a9e-4f55-9d6b-2f0c5a3e1b77', statuses: ['success', 'pass'] };
    writeFileSync(path.join(project, 'target', 'manifest.json'), syntheticManifest(inv));
    writeFileSync(path.join(project, 'target', 'run_results.json'), syntheticRunResults(inv));

    attic(['capture', '--quiet'], project);
    const history = JSON.parse(attic(['history', '--json'], project)) as Array<Record<string, unknown>>;
    expect(history.map((row) => row.invocation_id)).toEqual([inv.invocationId]);
  });

  it('runs through npx --package <tarball>', () => {
    const help = execFileSync('npx', ['--yes', '--prefer-offline', '--package', tarball, 'dbtattic', '--help'], {
      cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: npmEnv(),
    });
    expect(help).toMatch(/^Usage: dbtattic/m);
  });
});
