import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_DIR } from '../helpers/cli.js';
import { attic, INSTALLED_BIN, lineEnv, NODE_BIN, PREFIX, TARBALL } from './installed.js';

/**
 * The published shape, tried as a user gets it: `npm pack` of the built tree, installed
 * globally into a throwaway prefix (install-package.ts) and run from there, never from the clone,
 * on the Node line first on PATH.
 */
const pkg = JSON.parse(readFileSync(path.join(REPO_DIR, 'package.json'), 'utf8')) as { name: string; version: string; engines: { node: string } };

describe('the packed tarball', () => {
  it("holds exactly what runs: bin, dist without source maps, schema, the report page's assets, README, LICENSE", () => {
    const files = execFileSync('tar', ['tzf', TARBALL], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((f) => f.replace(/^package\//, ''));
    const tops = new Set(files.map((f) => (f.includes('/') ? `${f.split('/')[0]}/` : f)));
    expect([...tops].sort()).toEqual(['LICENSE', 'README.md', 'assets/', 'bin/', 'dist/', 'package.json', 'schema/']);
    expect(files.filter((f) => f.endsWith('.map') || /(^|\/)(test|fixtures|src)\//.test(f))).toEqual([]);
    expect(files).toContain('dist/cli/main.js');
    // DuckDB's client in one file (scripts/bundle-duckdb.mjs), with its code cache (src/store/db/code-cache.ts).
    expect(files).toContain('dist/vendor/duckdb-node-api.cjs');
    expect(files).toContain('dist/vendor/duckdb-node-api.cjs.cache');
    // The CLI bundled (scripts/bundle-cli.mjs), which bin/ loads.
    expect(files).toContain('dist/bundle/main.mjs');
    expect(files).toContain('assets/report/app.js');
    expect(files.filter((f) => f.startsWith('schema/')).length).toBeGreaterThan(0);
  });

  it(`installs on this Node line (${process.version}), which engines names`, () => {
    const major = Number(process.versions.node.split('.')[0]);
    expect(pkg.engines.node.split('||').map((range) => range.trim())).toContainEqual(expect.stringMatching(new RegExp(`^\\^${major}\\.`)));
    expect(realpathSync(INSTALLED_BIN)).toBe(realpathSync(path.join(PREFIX, 'lib', 'node_modules', pkg.name, 'bin', 'dbtattic.js')));
    expect(execFileSync('node', ['--version'], { env: lineEnv(), encoding: 'utf8' }).trim()).toBe(process.version);
    expect(NODE_BIN).toBe(path.dirname(process.execPath));
  });

  it("answers --version with package.json's and lists every command in --help", () => {
    expect(attic(['--version'], PREFIX).stdout.trim()).toBe(pkg.version);
    const help = attic(['--help'], PREFIX).stdout;
    for (const command of [
      'capture',
      'run',
      'state',
      'plan',
      'explain',
      'history',
      'query',
      'rebuild',
      'inspect',
      'show',
      'diff',
      'report',
      'branch',
      'sync',
      'compact',
      'push',
      'pull',
      'forget',
      'prune',
      'verify',
      'mcp',
      'info',
    ]) {
      expect(help).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
    }
  });

  it('runs through npx --package <tarball>', () => {
    const help = execFileSync('npx', ['--yes', '--prefer-offline', '--package', TARBALL, 'dbtattic', '--help'], {
      cwd: PREFIX,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...lineEnv(), npm_config_update_notifier: 'false' },
    });
    expect(help).toMatch(/^Usage: dbtattic/m);
  });
});
